// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { json } from "@forge/toolkit";
import { describeTable, listTables } from "./catalog.ts";
import { openDatabase } from "./connection.ts";
import { runQuery } from "./query.ts";
import { jsonReplyBytes, listReplyBytes, REPLY_BYTES } from "./reply_bounds.ts";
import type { Sqlite } from "./sqlite.ts";
import { TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const MiB = 1024 * 1024;

/** The JSON-RPC reply line the server writes for a tool's result (the tools answer `json({ ...result })`). */
function replyLine(result: object): number {
  return new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result: json({ ...result }) })).length;
}

/** A database file built by `sql`, opened read-only as the server opens it. */
function withDb(sql: string, fn: (db: Sqlite) => void): void {
  const base = Deno.makeTempDirSync({ dir: TMP, prefix: "sqlite-bounds-" });
  const path = join(base, "app.db");
  const build = new DatabaseSync(path);
  build.exec(sql);
  build.close();
  const db = openDatabase(path, false);
  try {
    fn(db);
  } finally {
    db.close();
    Deno.removeSync(base, { recursive: true });
  }
}

Deno.test({
  name:
    "jsonReplyBytes() covers run_query's and describe_table's real replies of quotes, 2 bytes of JSON and 4 of text",
  permissions: perms,
  fn() {
    const quotes = '"'.repeat(240_000);
    // 1,024 rows of 1,000 quotes: past the 1 MiB of JSON; the description's default and CREATE statement near it.
    const insert = `INSERT INTO t VALUES ('${'"'.repeat(1000)}');` + "INSERT INTO t SELECT c FROM t;".repeat(10);
    withDb(
      `CREATE TABLE t (c TEXT DEFAULT '${quotes}'); ${insert}`,
      (db) => {
        const rows = runQuery(db, "SELECT c FROM t", { maxRows: 10_000, maxSqlLength: 10_000, allowRecursive: false });
        assert.equal(rows.limit, "max_bytes", "rows up to the 1 MiB of JSON");
        assert.ok(replyLine(rows) > 2.9 * MiB, `${replyLine(rows)}`);
        assert.ok(replyLine(rows) <= REPLY_BYTES.run_query, `${replyLine(rows)} > ${REPLY_BYTES.run_query}`);
        const small = runQuery(db, "SELECT c FROM t", {
          maxRows: 10_000,
          maxSqlLength: 10_000,
          allowRecursive: false,
          maxBytes: 5000,
        });
        assert.ok(replyLine(small) <= jsonReplyBytes(5000), `${replyLine(small)} > ${jsonReplyBytes(5000)}`);
        const description = describeTable(db, "t");
        assert.ok(replyLine(description) > 2.7 * MiB, `${replyLine(description)}`);
        assert.ok(replyLine(description) <= REPLY_BYTES.describe_table);
      },
    );
  },
});

Deno.test({
  name: "listReplyBytes() covers list_tables' real reply of tables named with control characters past its 1 MiB",
  permissions: perms,
  fn() {
    const name = (i: number) => `"${"\u0001".repeat(1040)}${String(i).padStart(5, "0")}"`;
    const tables = Array.from({ length: 1_000 }, (_, i) => `CREATE TABLE ${name(i)} (c);`).join("");
    withDb(`BEGIN; ${tables} COMMIT;`, (db) => {
      const listed = listTables(db);
      assert.ok(listed.tables.length > 990 && listed.truncated, `${listed.tables.length}`);
      assert.ok(replyLine(listed) > 13 * 0.99 * MiB, `${replyLine(listed)}`);
      assert.ok(replyLine(listed) <= REPLY_BYTES.list_tables, `${replyLine(listed)} > ${REPLY_BYTES.list_tables}`);
    });
    assert.equal(REPLY_BYTES.list_tables, listReplyBytes(MiB, 10_000));
    for (const [tool, bytes] of Object.entries(REPLY_BYTES)) assert.ok(4 * bytes < 64 * MiB, `${tool}: ${bytes}`);
  },
});
