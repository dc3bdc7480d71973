// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { session, textOf, TMP } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

Deno.test({
  name: "describe_table returns columns, indexes and keys, matched without regard to case",
  permissions: perms,
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "describe_table", arguments: { table: "Products" } });
    const table = result.structuredContent as {
      name: string;
      columns: { name: string; type: string }[];
      truncated: boolean;
    };
    assert.equal(table.name, "products");
    assert.equal(table.truncated, false);
    assert.deepEqual(table.columns.map((c) => `${c.name} ${c.type}`), [
      "id INTEGER",
      "name TEXT",
      "price INTEGER",
      "image BLOB",
    ]);
    await s.end();
  },
});

Deno.test({
  name: "describe_table refuses a missing argument and an unknown table, naming it",
  permissions: perms,
  async fn() {
    const s = await session();
    const missing = await s.client.callTool({ name: "describe_table", arguments: {} });
    assert.equal(missing.isError, true);
    assert.match(textOf(missing), /Invalid argument "table": is missing/);
    const unknown = await s.client.callTool({ name: "describe_table", arguments: { table: "secrets" } });
    assert.equal(unknown.isError, true);
    assert.equal(textOf(unknown), 'Cannot describe table "secrets": no such table or view (list_tables shows them)');
    await s.end();
  },
});
