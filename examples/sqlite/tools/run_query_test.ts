// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { session, textOf, TMP } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

Deno.test({
  name: "run_query returns rows as JSON, validated against its output schema by the SDK client",
  permissions: perms,
  async fn() {
    const s = await session();
    const result = await s.client.callTool({
      name: "run_query",
      arguments: {
        sql: "SELECT id, name, price, image FROM products WHERE id <> :skip ORDER BY id",
        params: { skip: 2 },
      },
    });
    assert.deepEqual(result.structuredContent, {
      columns: ["id", "name", "price", "image"],
      rows: [
        { id: 1, name: "pen", price: 250, image: { $base64: "iVBORw==" } },
        { id: 3, name: "pad", price: "9007199254740993", image: null },
      ],
      row_count: 2,
      truncated: false,
    });
    await s.end();
  },
});

Deno.test({
  name: "run_query flags truncation at the config's max_rows, read at each call",
  permissions: perms,
  async fn() {
    const s = await session({ config: { max_rows: 2 } });
    const cut = await s.client.callTool({
      name: "run_query",
      arguments: { sql: "SELECT id FROM products ORDER BY id" },
    });
    assert.deepEqual(cut.structuredContent, {
      columns: ["id"],
      rows: [{ id: 1 }, { id: 2 }],
      row_count: 2,
      truncated: true,
      limit: "max_rows",
    });
    s.set({ max_rows: 5 });
    const whole = await s.client.callTool({ name: "run_query", arguments: { sql: "SELECT id FROM products" } });
    assert.equal((whole.structuredContent as { truncated: boolean }).truncated, false);
    await s.end();
  },
});

Deno.test({
  name: "run_query refusals are isError results the model can act on, and nothing changes",
  permissions: perms,
  async fn() {
    const s = await session();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{}, /Invalid argument "sql": is missing/],
      [{ sql: "DELETE FROM products" }, /only SELECT/],
      [{ sql: "SELECT 1; DELETE FROM products" }, /exactly one statement/],
      [{ sql: "ATTACH DATABASE 'canary.db' AS c" }, /only SELECT/],
      [{ sql: "SELECT * FROM pragma_database_list" }, /not a read-only schema PRAGMA/],
      [{ sql: "SELECT ?", params: "x" }, /Invalid argument "params": must be an array/],
      [{ sql: "SELECT ?", params: [[1]] }, /Invalid argument "params": params\[0\] must be a string/],
      [{ sql: "SELECT * FROM nope" }, /no such table: nope/],
      [{ sql: "SELECT json_extract('{', '$')" }, /malformed JSON/],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "run_query", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), reason, JSON.stringify(args));
      assert.ok(!textOf(result).includes(s.canary) && !textOf(result).includes(s.db));
    }
    assert.equal(s.count("products"), 3);
    await s.end();
  },
});
