// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { session, TMP } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

Deno.test({
  name: "list_tables returns the tables as structured content and the same JSON as text",
  permissions: perms,
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "list_tables", arguments: {} });
    const expected = {
      tables: [{ name: "audit", type: "table" }, { name: "products", type: "table" }],
      truncated: false,
    };
    assert.deepEqual(result.structuredContent, expected);
    assert.deepEqual(JSON.parse((result.content[0] as { text: string }).text), expected);
    await s.end();
  },
});

Deno.test({
  name: "list_tables says so when no database is configured",
  permissions: perms,
  async fn() {
    const s = await session();
    s.set({ database: undefined });
    const result = await s.client.callTool({ name: "list_tables", arguments: {} });
    assert.equal(result.isError, true);
    assert.match((result.content[0] as { text: string }).text, /no database is configured/);
    await s.end();
  },
});
