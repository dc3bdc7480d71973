// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { describeTable, listTables, MAX_CATALOG_ROWS } from "./catalog.ts";
import { openDatabase } from "./connection.ts";
import { makeFixture, TMP, withFixtureDb } from "./_fixture.ts";
import { openSqlite, type Sqlite } from "./sqlite.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

function withDb(fn: (db: Sqlite) => void): () => void {
  return withFixtureDb((path) => openDatabase(path, false), fn);
}

Deno.test({
  name: "listTables() lists tables and views by name, without SQLite's own",
  permissions: perms,
  fn: withDb((db) => {
    assert.deepEqual(listTables(db), {
      tables: [
        { name: "big_orders", type: "view" },
        { name: "blobs", type: "table" },
        { name: "customers", type: "table" },
        { name: "log", type: "table" },
        { name: "odd name", type: "table" },
        { name: "orders", type: "table" },
      ],
      truncated: false,
    });
  }),
});

Deno.test({
  name: "describeTable() gives columns, indexes and foreign keys, matching the name as SQLite does",
  permissions: perms,
  fn: withDb((db) => {
    const orders = describeTable(db, "ORDERS");
    assert.equal(orders.name, "orders");
    assert.equal(orders.type, "table");
    assert.match(orders.sql ?? "", /^CREATE TABLE orders/);
    assert.deepEqual(orders.columns, [
      { name: "id", type: "INTEGER", not_null: false, default: null, primary_key: 1 },
      { name: "customer_id", type: "INTEGER", not_null: true, default: null, primary_key: 0 },
      { name: "total", type: "INTEGER", not_null: false, default: "0", primary_key: 0 },
    ]);
    assert.deepEqual(orders.indexes, [{ name: "orders_by_customer", unique: false, origin: "c", partial: false }]);
    assert.deepEqual(orders.foreign_keys, [
      { column: "customer_id", table: "customers", to: "id", on_update: "NO ACTION", on_delete: "CASCADE" },
    ]);
    assert.equal(orders.truncated, false);
    assert.equal(describeTable(db, "odd name").columns[0].name, "x");
    assert.equal(describeTable(db, "big_orders").type, "view");
  }),
});

Deno.test({
  name: "describeTable() refuses unknown names, naming them, and never runs a name as SQL",
  permissions: perms,
  fn: withDb((db) => {
    for (
      const name of [
        "nope",
        "orders; DROP TABLE orders",
        "x') UNION SELECT * FROM customers --",
        "sqlite_master",
        "main.orders",
      ]
    ) {
      assert.throws(() => describeTable(db, name), (err: Error) => {
        assert.ok(err instanceof PolicyError);
        assert.equal(err.code, "not-found");
        assert.match(err.message, /^Cannot describe table ".*": no such table or view \(list_tables shows them\)$/);
        return true;
      });
    }
    assert.equal(describeTable(db, "orders").columns.length, 3, "the table is still there");
  }),
});

Deno.test({
  name: "describeTable() refuses empty, over-long and control-character names",
  permissions: perms,
  fn: withDb((db) => {
    for (const name of ["", "x".repeat(257), "orders\n", "a\u0000b"]) {
      assert.throws(() => describeTable(db, name), /Invalid argument "table": must be 1 to 256 characters/);
    }
  }),
});

Deno.test({
  name:
    "describeTable() refuses a description past 1 MiB of JSON, naming what to do, rather than one too big to send " +
    "or one with columns left out",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    // 200,000 characters that JSON writes as 6 bytes each, in the column's name and again in the CREATE statement;
    // a view whose three columns' names pass the read's budget together (it returned two of the three).
    writer.exec(`CREATE TABLE wide ("${"\x01".repeat(200_000)}");
      CREATE TABLE w1 ("${"a".repeat(400_000)}"); CREATE TABLE w2 ("${"b".repeat(400_000)}");
      CREATE TABLE w3 ("${"c".repeat(400_000)}"); CREATE VIEW joined AS SELECT * FROM w1, w2, w3;`);
    writer.close();
    const db = openDatabase(fixture.db, false);
    try {
      for (
        const [table, size] of [["wide", / \(2,4\d\d,\d{3}\)/], ["joined", /hold: /]] as const
      ) {
        assert.throws(() => describeTable(db, table), (err: Error) => {
          assert.ok(err instanceof PolicyError, String(err));
          assert.equal(err.code, "too-large", `${table}: ${err.message.slice(0, 300)}`);
          assert.match(
            err.message,
            new RegExp(
              `^Cannot describe table "${table}": its description passes the 1,048,576 bytes of JSON a result may hold`,
            ),
          );
          assert.match(err.message, size);
          assert.match(err.message, /read them in parts with run_query, e\.g\. SELECT cid, substr\(name, 1, 100\)/);
          return true;
        }, table);
      }
      assert.equal(describeTable(db, "w1").columns[0].name.length, 400_000, "one of them alone fits");
    } finally {
      db.close();
      fixture.remove();
    }
  },
});

Deno.test({
  name: "describeTable() says when it cut a list at 10,000 entries: one more foreign-key entry than it lists",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    // A column may carry any number of REFERENCES clauses, each one entry of pragma_foreign_key_list: short ones keep
    // the description under its 1 MiB. (Indexes are cut by the same code; 10,001 of them take SQLite seconds to make.)
    writer.exec(`CREATE TABLE p (id INTEGER PRIMARY KEY);
      CREATE TABLE many_keys (a${" REFERENCES p".repeat(MAX_CATALOG_ROWS + 1)});`);
    writer.close();
    const db = openDatabase(fixture.db, false);
    try {
      const cut = describeTable(db, "many_keys");
      assert.equal(cut.foreign_keys.length, MAX_CATALOG_ROWS);
      assert.equal(cut.truncated, true);
      assert.equal(describeTable(db, "p").truncated, false);
    } finally {
      db.close();
      fixture.remove();
    }
  },
});
