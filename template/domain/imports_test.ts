// test-permissions: --allow-read={repo}
// The domain is plain TypeScript: it may use the toolkit's policy code
// (@forge/toolkit/validate) but no server, tool or SDK type, so it can be
// tested and reused without MCP.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const ALLOWED = [/^node:/, /^zod$/, /^@forge\/toolkit\/validate$/, /^\.\/[a-z_]+\.ts$/];
const SPECIFIER = /^\s*(?:import|export)\b[^"]*?\bfrom\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gm;

Deno.test({
  name: "domain/ imports only node:, zod, @forge/toolkit/validate and its own files",
  permissions: { read: [dir] },
  async fn() {
    await assert.rejects(Deno.readTextFile(new URL("../main.ts", import.meta.url)), Deno.errors.NotCapable);
    let imports = 0;
    for await (const entry of Deno.readDir(dir)) {
      if (!entry.name.endsWith(".ts") || entry.name.endsWith("_test.ts")) continue;
      for (const [, from, bare] of (await Deno.readTextFile(`${dir}/${entry.name}`)).matchAll(SPECIFIER)) {
        const specifier = from ?? bare;
        assert.ok(ALLOWED.some((re) => re.test(specifier)), `${entry.name} imports ${specifier}`);
        imports++;
      }
    }
    assert.ok(imports >= 5, `only ${imports} imports seen`);
  },
});
