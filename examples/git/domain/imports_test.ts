// test-permissions: --allow-read={repo}
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { checkDomainImports } from "../../domain_imports.ts";

const dir = fileURLToPath(new URL(".", import.meta.url));

Deno.test({
  name: "domain/ imports neither the MCP core, the testing helpers nor the SDK",
  permissions: { read: [dir] },
  async fn() {
    const { files, imports } = await checkDomainImports(dir);
    assert.ok(files >= 8 && imports >= 15, `only ${files} files and ${imports} imports checked`);
  },
});
