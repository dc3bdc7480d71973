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
    let imports = 0;
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      const text = await Deno.readTextFile(`${dir}/${entry.name}`);
      const specifiers = text.matchAll(/^(?:import|export)\b[^;"]*?\bfrom\s+"([^"]+)"|^import\s+"([^"]+)"/gm);
      for (const [, from, bare] of specifiers) {
        const specifier = from ?? bare;
        assert.ok(allowed.some((re) => re.test(specifier)), `${entry.name} imports ${specifier}`);
        assert.notEqual(specifier, "@forge/toolkit");
        imports++;
      }
      checked++;
    }
    assert.ok(checked >= 8 && imports >= 15, `only ${checked} files and ${imports} imports checked`);
  },
});
