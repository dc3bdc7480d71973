// Test files run a share per generated module: Deno sets up one test module
// per share instead of one per file, and that set-up, not the tests, was most
// of what small test files cost (scripts/ok.ts).

import { join } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * Writes at most `shares` test modules named `<name>_<n>_test.ts` to `dir`,
 * each importing a run of neighbouring `files` (absolute paths) in turn;
 * returns their paths, none for no files.
 */
export async function writeShareModules(
  files: string[],
  shares: number,
  dir: string,
  name: string,
): Promise<string[]> {
  if (files.length === 0) return [];
  const size = Math.ceil(files.length / Math.max(1, Math.min(shares, files.length)));
  const modules: string[] = [];
  for (let start = 0; start < files.length; start += size) {
    const module = join(dir, `${name}_${start / size}_test.ts`);
    const imports = files.slice(start, start + size).map((f) => `import "${pathToFileURL(f).href}";\n`);
    await Deno.writeTextFile(module, imports.join(""));
    modules.push(module);
  }
  return modules;
}
