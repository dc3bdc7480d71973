// One check for every example's domain/ folder: plain TypeScript that may use
// the toolkit's validate and configreload modules, zod and node: built-ins,
// but never the MCP core, the testing helpers or the SDK.
import assert from "node:assert/strict";

const ALLOWED = [
  /^node:/,
  /^zod$/,
  /^@forge\/toolkit\/(validate|validate\/sql-tokens|configreload)$/,
  /^\.\/[a-z_]+\.ts$/,
];

/** How many files and import specifiers a check read. */
export interface DomainImports {
  files: number;
  imports: number;
}

/**
 * Reads every non-test `.ts` file of `dir` (a folder path ending in `/`),
 * asserts each import and re-export specifier is allowed, and asserts that
 * the folder's parent (where main.ts lives) cannot be read under the test's
 * permissions.
 */
export async function checkDomainImports(dir: string, skip: string[] = []): Promise<DomainImports> {
  await assert.rejects(Deno.readTextFile(`${dir}../main.ts`), Deno.errors.NotCapable);
  let files = 0;
  let imports = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts") || skip.includes(entry.name)) continue;
    const text = await Deno.readTextFile(`${dir}${entry.name}`);
    for (const [, specifier] of text.matchAll(/^(?:import|export)\s(?:[^;"]*?\sfrom\s+)?"([^"]+)"/gm)) {
      assert.ok(ALLOWED.some((re) => re.test(specifier)), `${entry.name} imports ${specifier}`);
      imports++;
    }
    files++;
  }
  return { files, imports };
}
