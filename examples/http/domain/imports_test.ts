// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const allowed = [
  /^node:/,
  /^zod$/,
  /^@forge\/toolkit\/validate$/,
  /^@forge\/toolkit\/configreload$/,
  /^\.\/[a-z_]+\.ts$/,
];

Deno.test({
  name: "domain/ imports neither the MCP core, the testing helpers nor the SDK",
  permissions: { read: [dir] },
  async fn() {
    await assert.rejects(Deno.readTextFile(new URL("../main.ts", import.meta.url)), Deno.errors.NotCapable);
    let checked = 0;
    let specifiers = 0;
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      const text = await Deno.readTextFile(`${dir}/${entry.name}`);
      for (const [, specifier] of text.matchAll(/^(?:import|export)\s(?:[^;"]*?\sfrom\s+)?"([^"]+)"/gm)) {
        assert.ok(allowed.some((re) => re.test(specifier)), `${entry.name} imports ${specifier}`);
        specifiers++;
      }
      checked++;
    }
    assert.ok(checked >= 8, `only ${checked} files checked`);
    assert.ok(specifiers >= checked, "the import lines were found");
  },
});
