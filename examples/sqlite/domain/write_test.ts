// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { join } from "node:path";
import { openDatabase } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { openSqlite, type Sqlite } from "./sqlite.ts";
import { executeWrite, planWrite, type WriteOptions } from "./write.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const OPTIONS: WriteOptions = { maxSqlLength: 10_000, allowRecursive: false };

function withDbs(fn: (reader: Sqlite, writer: Sqlite, canary: string) => void): () => void {
  return () => {
    const fixture = makeFixture();
    const reader = openDatabase(fixture.db, false);
    const writer = openDatabase(fixture.db, true);
    try {
      fn(reader, writer, fixture.canary);
    } finally {
      reader.close();
      writer.close();
      fixture.remove();
    }
  };
}

const count = (db: Sqlite, table: string) =>
  Number((db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: bigint }).n);

Deno.test({
  name: "planWrite() names every table a write reaches, and planning changes nothing",
  permissions: perms,
  fn: withDbs((reader) => {
    const plans: [string, string[]][] = [
      ["INSERT INTO customers (name) VALUES (?)", ["sql:insert:customers", "sql:insert:log"]],
      ["DELETE FROM customers WHERE id = ?", ["sql:delete:customers", "sql:delete:orders"]],
      ["REPLACE INTO customers (id, name) VALUES (1, 'A')", [
        "sql:delete:customers",
        "sql:delete:orders",
        "sql:insert:customers",
        "sql:insert:log",
      ]],
      ["UPDATE orders SET total = total + 1", ["sql:update:orders"]],
      ["CREATE TABLE notes (body TEXT)", ["sql:ddl:notes"]],
      ["CREATE INDEX by_total ON orders (total)", ["sql:ddl:orders"]],
      ["DROP INDEX orders_by_customer", ["sql:ddl:orders"]],
      ["DROP TABLE log", ["sql:ddl:log"]],
      ["ALTER TABLE log RENAME TO history", ["sql:ddl:history", "sql:ddl:log"]],
    ];
    for (const [sql, patterns] of plans) assert.deepEqual(planWrite(reader, sql, OPTIONS).patterns, patterns, sql);
    assert.equal(count(reader, "customers"), 2);
    assert.equal(count(reader, "log"), 2);
  }),
});

Deno.test({
  name: "planWrite() refuses what SQLite cannot compile, and whatever reaches another database file",
  permissions: perms,
  fn: withDbs((reader, _writer, canary) => {
    const refused: [string, RegExp][] = [
      ["INSERT INTO nope VALUES (1)", /Cannot execute: no such table: nope/],
      ["INSERT INTO log SELECT value FROM canary.secrets", /no such table: canary.secrets/],
      ["CREATE TABLE customers (x)", /table customers already exists/],
      ["ATTACH DATABASE 'canary.db' AS canary", /ATTACH is not allowed/],
      ["VACUUM INTO 'copy.db'", /VACUUM/],
      [
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) INSERT INTO log SELECT x FROM c",
        /allow_recursive/,
      ],
    ];
    for (const [sql, reason] of refused) {
      assert.throws(() => planWrite(reader, sql, OPTIONS), (err: Error) => {
        assert.ok(err instanceof PolicyError, sql);
        assert.match(err.message, reason, sql);
        assert.ok(!err.message.includes(canary));
        return true;
      });
    }
  }),
});

Deno.test({
  name: "executeWrite() runs a planned write with bound values and reports the change",
  permissions: perms,
  fn: withDbs((reader, writer) => {
    const plan = planWrite(reader, "INSERT INTO customers (name, email) VALUES (:name, :email)", OPTIONS);
    const result = executeWrite(writer, {
      plan,
      params: { name: "Edsger'); DROP TABLE customers; --", email: "e@example.com" },
      allowRecursive: false,
    });
    assert.deepEqual(result, { changes: 1, last_insert_rowid: 3 });
    assert.equal(count(reader, "customers"), 3);
    assert.equal(count(reader, "log"), 3, "the trigger ran, as the plan said");
    const ddl = planWrite(reader, "CREATE TABLE notes (body TEXT)", OPTIONS);
    assert.deepEqual(executeWrite(writer, { plan: ddl, params: [], allowRecursive: false }), {
      changes: 0,
      last_insert_rowid: null,
    });
    const update = planWrite(reader, "UPDATE orders SET total = 1 WHERE id < 3", OPTIONS);
    assert.deepEqual(executeWrite(writer, { plan: update, params: [], allowRecursive: false }), {
      changes: 2,
      last_insert_rowid: null,
    });
    assert.equal(count(reader, "notes"), 0);
  }),
});

Deno.test({
  name: "executeWrite() refuses, and changes nothing, when the statement would write beyond its patterns",
  permissions: perms,
  fn: withDbs((reader, writer) => {
    const plan = planWrite(reader, "UPDATE orders SET total = 0", OPTIONS);
    // The schema changes between the probe and the call: a new trigger now writes elsewhere.
    writer.exec("CREATE TRIGGER orders_log AFTER UPDATE ON orders BEGIN INSERT INTO log VALUES ('changed'); END");
    assert.throws(
      () => executeWrite(writer, { plan, params: [], allowRecursive: false }),
      /Cannot execute: the statement would also insert into "log" \(through trigger "orders_log"\), which its patterns do not name/,
    );
    assert.equal(Number((reader.prepare("SELECT sum(total) AS s FROM orders").get() as { s: bigint }).s), 500);
    assert.equal(count(reader, "log"), 2);
  }),
});

Deno.test({
  name:
    "executeWrite() carries out schema changes SQLite does in several steps (AUTOINCREMENT, AS SELECT, DROP COLUMN)",
  permissions: perms,
  fn: withDbs((reader, writer) => {
    const run = (sql: string) => {
      const plan = planWrite(reader, sql, OPTIONS);
      return { patterns: plan.patterns, ...executeWrite(writer, { plan, params: [], allowRecursive: false }) };
    };
    assert.deepEqual(run("CREATE TABLE seq (id INTEGER PRIMARY KEY AUTOINCREMENT, v TEXT)").patterns, ["sql:ddl:seq"]);
    assert.deepEqual(run("INSERT INTO seq (v) VALUES ('a')"), {
      patterns: ["sql:insert:seq"],
      changes: 1,
      last_insert_rowid: 1,
    });
    assert.deepEqual(run("CREATE TABLE copy AS SELECT id, name, email FROM customers").patterns, ["sql:ddl:copy"]);
    assert.deepEqual(run("ALTER TABLE copy DROP COLUMN email").patterns, ["sql:ddl:copy"]);
    assert.deepEqual(run("DROP TABLE copy").patterns, ["sql:ddl:copy"]);
    assert.throws(() => planWrite(reader, "DELETE FROM sqlite_sequence", OPTIONS), /one of SQLite's own tables/);
  }),
});

Deno.test({
  name: "executeWrite() reports constraint failures as refusals",
  permissions: perms,
  fn: withDbs((reader, writer) => {
    const plan = planWrite(reader, "INSERT INTO customers (id, name) VALUES (1, 'dup')", OPTIONS);
    assert.throws(
      () => executeWrite(writer, { plan, params: [], allowRecursive: false }),
      /Cannot execute: UNIQUE constraint failed: customers.id/,
    );
    const missing = planWrite(reader, "INSERT INTO orders (customer_id) VALUES (99)", OPTIONS);
    assert.throws(
      () => executeWrite(writer, { plan: missing, params: [], allowRecursive: false }),
      /FOREIGN KEY constraint failed/,
    );
  }),
});

Deno.test({
  name:
    "executeWrite() refuses a write that would grow the file past maxDatabaseMb: it fails whole, the file stays under",
  permissions: perms,
  fn: withDbs((reader, writer) => {
    const bytes = (db: Sqlite) =>
      Number(
        (db.prepare("SELECT page_count * page_size AS n FROM pragma_page_count, pragma_page_size").get() as {
          n: bigint;
        }).n,
      );
    // Ten blobs of 300,000 bytes: 3 MB, in one statement (a red team filled 2 GB in two calls of this shape).
    const sql = "CREATE TABLE big AS WITH t(x) AS (VALUES (1),(2),(3),(4),(5),(6),(7),(8),(9),(10)) " +
      "SELECT zeroblob(300000) AS b FROM t";
    const plan = planWrite(reader, sql, OPTIONS);
    const before = bytes(reader);
    assert.ok(before < 2 ** 20);
    assert.throws(
      () => executeWrite(writer, { plan, params: [], allowRecursive: false, maxDatabaseMb: 1 }),
      (err: unknown) =>
        err instanceof PolicyError &&
        err.message ===
          "Cannot execute: the database would grow past 1 MiB (max_database_mb), or the disk is full; nothing was changed",
    );
    assert.ok(bytes(reader) <= 2 ** 20, `the file stays within 1 MiB (${bytes(reader)} bytes)`);
    assert.equal(reader.prepare("SELECT name FROM sqlite_schema WHERE name = 'big'").get(), undefined, "no table");
    // Under a cap it fits, the same write runs.
    executeWrite(writer, { plan, params: [], allowRecursive: false, maxDatabaseMb: 64 });
    assert.equal(count(reader, "big"), 10);
    assert.ok(bytes(reader) > 3_000_000);
  }),
});

Deno.test({
  name:
    "planWrite() refuses a write to a virtual table (FTS5, FTS4, R-Tree, or one a trigger reaches) at the probe as at the call, and changes nothing; a write may read a full-text table",
  permissions: perms,
  fn() {
    // Before, the probe gave `sql:insert:docs_fts` and the call failed with "this PRAGMA is not allowed" (the
    // module's own statements, its shadow tables' writes among them, were in no pattern); R-Tree's patterns named its
    // tables on a connection's first write only, and the next was refused as writing past them.
    const base = Deno.makeTempDirSync({ dir: TMP, prefix: "sqlite-fts-write-" });
    const path = join(base, "fts.db");
    const setup = openSqlite(path, {});
    setup.exec(`CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT);
      INSERT INTO docs (body) VALUES ('the quick brown fox'), ('a lazy dog'), ('quick thinking');
      CREATE VIRTUAL TABLE docs_fts USING fts5(body);
      INSERT INTO docs_fts (rowid, body) SELECT id, body FROM docs;
      CREATE VIRTUAL TABLE docs_ext USING fts5(body, content='docs', content_rowid='id');
      INSERT INTO docs_ext (docs_ext) VALUES ('rebuild');
      CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
        INSERT INTO docs_ext (rowid, body) VALUES (new.id, new.body);
      END;
      CREATE VIRTUAL TABLE docs4 USING fts4(body);
      INSERT INTO docs4 (docid, body) SELECT id, body FROM docs;
      CREATE VIRTUAL TABLE boxes USING rtree(id, x0, x1);
      INSERT INTO boxes VALUES (1, 0, 1);
      CREATE TABLE hits (id INTEGER);`);
    setup.close();
    const bytes = () => Deno.readFileSync(path);
    const before = bytes();
    const reader = openDatabase(path, false);
    const writer = openDatabase(path, true);
    const APPROVED_BEFORE = ["docs", "docs_ext", "docs_fts", "docs4", "boxes", "gone"]
      .flatMap((t) => ["insert", "update", "delete", "ddl"].map((kind) => `sql:${kind}:${t}`));
    const virtual = (table: string) => new RegExp(`Cannot execute: the statement would change "${table}", a virtual`);
    try {
      const refused: [string, RegExp][] = [
        ["INSERT INTO docs_fts (rowid, body) VALUES (9, 'x')", virtual("docs_fts")],
        ["INSERT INTO docs_fts (docs_fts) VALUES ('delete-all')", virtual("docs_fts")],
        ["INSERT INTO docs_fts (docs_fts, rank) VALUES ('rank', 'bm25(10)')", virtual("docs_fts")],
        ["INSERT INTO docs_fts (docs_fts) VALUES ('optimize')", virtual("docs_fts")],
        ["DELETE FROM docs_fts", virtual("docs_fts")],
        ["UPDATE Docs_Fts SET body = 'z'", virtual("docs_fts")],
        ["ALTER TABLE docs_fts RENAME TO gone", virtual("docs_fts")],
        ["DROP TABLE docs_fts", virtual("docs_fts")],
        ["INSERT INTO docs4 (docs4) VALUES ('rebuild')", virtual("docs4")],
        // The sync trigger writes the external-content FTS table, and so its shadow tables.
        ["INSERT INTO docs (body) VALUES ('new')", virtual("docs_ext")],
        ["INSERT INTO boxes VALUES (2, 5, 6)", virtual("boxes")],
        // SQLite keeps the shadow tables read-only (defensive mode).
        ["INSERT INTO docs_fts_data VALUES (99, x'00')", /table docs_fts_data may not be modified/],
        ["UPDATE docs_fts_config SET v = 99", /table docs_fts_config may not be modified/],
        ["DELETE FROM docs4_segdir", /table docs4_segdir may not be modified/],
      ];
      // Twice: the second plan meets modules already connected on both connections.
      for (const round of [1, 2]) {
        for (const [sql, reason] of refused) {
          assert.throws(() => planWrite(reader, sql, OPTIONS), reason, `${sql} (round ${round})`);
          // Held to what the probe used to approve (the virtual tables' own patterns), the writer still writes
          // nothing: the module's writes to its shadow tables are in none of them (an optimize with nothing to
          // merge writes none, and runs).
          const plan = { sql, patterns: APPROVED_BEFORE, schemaChange: sql.startsWith("ALTER") };
          try {
            executeWrite(writer, { plan, params: [], ...OPTIONS });
          } catch (err) {
            assert.ok(err instanceof PolicyError, sql);
          }
        }
      }
      assert.deepEqual(bytes(), before);
      // A write that only reads a full-text table: its module's bare PRAGMA is allowed, as for a query.
      for (
        const [sql, patterns] of [
          ["INSERT INTO hits SELECT rowid FROM docs_fts WHERE docs_fts MATCH 'quick'", ["sql:insert:hits"]],
          ["DELETE FROM hits WHERE id IN (SELECT docid FROM docs4 WHERE docs4 MATCH 'quick')", ["sql:delete:hits"]],
        ] as const
      ) {
        const plan = planWrite(reader, sql, OPTIONS);
        assert.deepEqual(plan.patterns, patterns);
        assert.equal(executeWrite(writer, { plan, params: [], ...OPTIONS }).changes, 2, sql);
      }
    } finally {
      reader.close();
      writer.close();
      Deno.removeSync(base, { recursive: true });
    }
  },
});
