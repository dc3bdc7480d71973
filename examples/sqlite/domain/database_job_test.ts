// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { openDatabase } from "./connection.ts";
import {
  answerJob,
  type DatabaseJob,
  type DatabaseReply,
  JOB_DEADLINE_ADVICE,
  type QueryLimits,
} from "./database_job.ts";
import { DatabaseSizes } from "./database_sizes.ts";
import { leaveHotJournal, makeFixture, TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const LIMITS: QueryLimits = { maxRows: 10, maxSqlLength: 1_000, allowRecursive: false, maxScanRows: 1_000 };

Deno.test({
  name: "answerJob() answers query, list and describe with the tools' values, and refusals as error replies",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const sizes = new DatabaseSizes(db);
    const answer = (job: DatabaseJob) => answerJob({ reader: db }, job, sizes);
    assert.deepEqual(
      answer({ kind: "query", sql: "SELECT name FROM customers WHERE id = ?", params: [2], limits: LIMITS }),
      { ok: { columns: ["name"], rows: [{ name: "Grace" }], row_count: 1, truncated: false } },
    );
    // Blobs travel as {"$base64": …} both ways.
    assert.deepEqual(
      answer({ kind: "query", sql: "SELECT hex(?) AS h", params: [{ $base64: "AP8=" }], limits: LIMITS }),
      { ok: { columns: ["h"], rows: [{ h: "00FF" }], row_count: 1, truncated: false } },
    );
    const list = answer({ kind: "list" }) as { ok: { tables: { name: string }[] } };
    assert.ok(list.ok.tables.some((table) => table.name === "big_orders"));
    const view = answer({ kind: "describe", table: "big_orders" }) as { ok: { type: string } };
    assert.equal(view.ok.type, "view");
    assert.deepEqual(answer({ kind: "query", sql: "DELETE FROM log", params: [], limits: LIMITS }), {
      error: {
        code: "sql",
        message: 'Cannot run query: only SELECT, WITH … SELECT and EXPLAIN are allowed, not "DELETE"',
      },
    });
    assert.deepEqual(answer({ kind: "describe", table: "nope" }), {
      error: {
        code: "not-found",
        message: 'Cannot describe table "nope": no such table or view (list_tables shows them)',
      },
    });
    assert.deepEqual(answer({ kind: "query", sql: "SELECT ?", params: "1", limits: LIMITS }), {
      error: {
        code: "invalid-input",
        message:
          'Invalid argument "params": must be an array (for ? placeholders) or an object (for :name placeholders)',
      },
    });
    // A read-only process can tell a write's patterns, and refuses to run it.
    const write = { sql: "DELETE FROM customers WHERE id = ?", limits: { maxSqlLength: 1_000, allowRecursive: false } };
    assert.deepEqual(answer({ kind: "patterns", ...write }), { ok: ["sql:delete:customers", "sql:delete:orders"] });
    assert.deepEqual(answer({ kind: "execute", ...write, params: [1] }), {
      error: { code: "sql", message: "Cannot execute: the database failed" },
    });
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "answerJob() runs execute on the read-write connection, with the patterns its read-only one found",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const reader = openDatabase(fixture.db, false);
    const writer = openDatabase(fixture.db, true);
    const limits = { maxSqlLength: 1_000, allowRecursive: false };
    const reply = answerJob(
      { reader, writer },
      { kind: "execute", sql: "DELETE FROM customers WHERE id = ?", params: [1], limits },
      new DatabaseSizes(reader),
    );
    assert.deepEqual(reply, { ok: { changes: 1, last_insert_rowid: null } });
    assert.equal(Number(reader.prepare("SELECT count(*) AS n FROM orders").get()?.n), 1, "the cascade ran");
    writer.close();
    reader.close();
    fixture.remove();
  },
});

Deno.test({
  name:
    "answerJob() marks a read-only connection's hot journal; execute and recover roll it back through the read-write connection first, one opened before the journal became hot too",
  permissions: { ...perms, run: [Deno.execPath()] },
  async fn() {
    const fixture = makeFixture();
    const reader = openDatabase(fixture.db, false);
    const writer = openDatabase(fixture.db, true);
    const sizes = new DatabaseSizes(reader);
    const sum = (table: string): DatabaseJob => ({
      kind: "query",
      sql: `SELECT sum(n) AS s FROM ${table}`,
      params: [],
      limits: LIMITS,
    });
    const refused = (reply: DatabaseReply) => {
      assert.ok("error" in reply && reply.error.hotJournal === true, JSON.stringify(reply));
      assert.match(reply.error.message, /^Cannot run query: the database has a hot journal/);
    };
    const rolledBack = { ok: { columns: ["s"], rows: [{ s: 2_001_000 }], row_count: 1, truncated: false } };
    await leaveHotJournal(fixture.db, "spill");
    refused(answerJob({ reader }, sum("spill"), sizes));
    const limits = { maxSqlLength: 1_000, allowRecursive: false };
    const reply = answerJob({ reader, writer }, { kind: "execute", sql: "DELETE FROM log", params: [], limits }, sizes);
    assert.deepEqual(reply, { ok: { changes: 2, last_insert_rowid: null } });
    assert.deepEqual(answerJob({ reader }, sum("spill"), sizes), rolledBack);
    await leaveHotJournal(fixture.db, "spill2");
    // The reader compiles from the schema it read before spill2 was made: it meets the journal reading spill.
    refused(answerJob({ reader }, sum("spill"), sizes));
    assert.deepEqual(answerJob({ reader, writer }, { kind: "recover" }, sizes), { ok: null });
    assert.deepEqual(answerJob({ reader }, sum("spill2"), sizes), rolledBack);
    assert.throws(() => Deno.statSync(`${fixture.db}-journal`), Deno.errors.NotFound, "rolled back");
    writer.close();
    reader.close();
    fixture.remove();
  },
});

Deno.test("JOB_DEADLINE_ADVICE tells list_tables and describe_table to raise query_timeout_ms, not to add a WHERE", () => {
  // On a file of 50,000 tables SQLite reads the schema (about 1 s) in every new process: no WHERE makes that shorter.
  for (const kind of ["list", "describe", "recover"] as const) {
    assert.match(JOB_DEADLINE_ADVICE[kind], /^raise query_timeout_ms/, kind);
  }
  assert.match(JOB_DEADLINE_ADVICE.query, /^narrow it \(a WHERE/);
  // A write's check compiles the statement: a costly one (a compile bomb) is simplified, and a large schema is
  // given more time; a WHERE changes neither.
  assert.match(JOB_DEADLINE_ADVICE.patterns, /^simplify the statement .* or raise query_timeout_ms above the time/);
});
