// test-permissions: --allow-read={repo}
// domain/ is plain TypeScript: it may use the toolkit's validate and
// configreload modules, zod and node: built-ins, but never the MCP core, the
// testing helpers or the SDK.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL(".", import.meta.url));
const ALLOWED = [/^node:/, /^zod$/, /^@forge\/toolkit\/(validate|configreload)$/, /^\.\/[a-z_]+\.ts$/];

Deno.test({
  name: "domain/ imports neither the toolkit core, nor @forge/toolkit/testing, nor the MCP SDK",
  permissions: { read: [DIR] },
  async fn() {
    let files = 0;
    for await (const entry of Deno.readDir(DIR)) {
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts") || entry.name === "_fixture.ts") continue;
      files++;
      const text = await Deno.readTextFile(`${DIR}${entry.name}`);
      const specifiers = [...text.matchAll(/^\s*(?:import|export)\b[^;]*?from\s+"([^"]+)"/gms)].map((m) => m[1]);
      for (const specifier of specifiers) {
        assert.ok(ALLOWED.some((re) => re.test(specifier)), `${entry.name} imports ${specifier}`);
      }
    }
    assert.ok(files >= 10, "the domain files were read");
    await assert.rejects(() => Deno.readTextFile(`${DIR}../main.ts`), Deno.errors.NotCapable);
  },
});
