// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { openDatabase } from "./connection.ts";
import { DatabaseSizes, PRICING_PRAGMAS } from "./database_sizes.ts";
import { Authorizer } from "./authorizer.ts";
import { withAuthorizer } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { openSqlite } from "./sqlite.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

Deno.test({
  name: "DatabaseSizes counts rows up to its cap, and keeps counts until another connection commits",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const sizes = new DatabaseSizes(db);
    sizes.refresh(100);
    assert.ok(sizes.tables.has("orders") && sizes.tables.has("odd name") && !sizes.tables.has("big_orders"));
    assert.equal(sizes.rows("orders"), 3);
    assert.equal(sizes.rows("odd name"), 0);
    const writer = openSqlite(fixture.db, {});
    writer.exec("INSERT INTO orders (customer_id, total) VALUES (1, 1), (1, 2)");
    // Not refreshed: the count is the one kept.
    assert.equal(sizes.rows("orders"), 3);
    sizes.refresh(100);
    assert.equal(sizes.rows("orders"), 5);
    sizes.refresh(4);
    assert.equal(sizes.rows("orders"), 5, "a lower cap keeps what was counted");
    sizes.refresh(100);
    writer.exec("DELETE FROM orders");
    sizes.refresh(3);
    assert.equal(sizes.rows("orders"), 0);
    writer.exec("INSERT INTO orders (customer_id, total) SELECT 1, value FROM json_each('[1,2,3,4,5,6]')");
    sizes.refresh(3);
    assert.equal(sizes.rows("orders"), 3, "counted up to the cap");
    assert.ok(sizes.pages() >= 1);
    assert.equal(sizes.schemaEntries(), Number(db.prepare("SELECT count(*) AS n FROM sqlite_schema").get()?.n));
    writer.close();
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseSizes.countable() tells stored tables from virtual ones without compiling any view of the file",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    writer.exec(
      "CREATE TABLE secret_src (n); CREATE VIEW unused AS SELECT n FROM secret_src; " +
        "CREATE VIRTUAL TABLE docs USING fts5(body); CREATE /* a comment */ TABLE commented (n); " +
        "CREATE TABLE without_rowid (k PRIMARY KEY) WITHOUT ROWID",
    );
    writer.close();
    const db = openDatabase(fixture.db, false);
    const read: string[] = [];
    // Records every table a compile reads: compiling the view would read secret_src.
    db.setAuthorizer((action: number, table: string | null) => {
      if (action === 20) read.push(String(table)); // SQLITE_READ
      return 0;
    });
    const sizes = new DatabaseSizes(db);
    sizes.refresh(100);
    read.length = 0;
    assert.deepEqual(
      ["orders", "docs", "docs_data", "commented", "without_rowid", "unused"].map((name) => sizes.countable(name)),
      [true, false, true, true, true, false],
    );
    assert.ok(!read.includes("secret_src"), `a view was compiled: ${read.join(", ")}`);
    db.setAuthorizer(null);
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseSizes.viewSql() reads only the views named, no more SQL than its bound, kept until a commit",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const writer = openSqlite(fixture.db, {});
    const small = "CREATE VIEW small_view AS SELECT id FROM orders";
    const big = `CREATE VIEW big_view AS SELECT id FROM orders /* ${"x".repeat(5_000)} */`;
    writer.exec(`${small}; ${big}; CREATE VIEW other_view AS SELECT 1 AS n`);
    const sizes = new DatabaseSizes(db);
    sizes.refresh(100);
    assert.deepEqual(sizes.viewSql(["orders", "SMALL_view", "missing"]), [small], "tables and unknown names left out");
    assert.deepEqual(sizes.viewSql(["small_view", "big_view"], 1_000), [small, undefined], "past the bound: unread");
    assert.deepEqual(sizes.viewSql(["big_view"]), [big]);
    writer.exec(`DROP VIEW small_view; CREATE VIEW small_view AS SELECT 2 AS n`);
    assert.deepEqual(sizes.viewSql(["small_view"]), [small], "kept until refreshed");
    sizes.refresh(100);
    assert.deepEqual(sizes.viewSql(["small_view"]), ["CREATE VIEW small_view AS SELECT 2 AS n"]);
    writer.close();
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseSizes.refresh() lists the tables again only after another connection commits",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const listed: string[] = [];
    const prepare = db.prepare.bind(db);
    db.prepare = (sql: string) => {
      if (sql.includes("sqlite_schema WHERE type = 'table'")) listed.push(sql);
      return prepare(sql);
    };
    const sizes = new DatabaseSizes(db);
    sizes.refresh(100);
    sizes.refresh(100);
    sizes.refresh(1_000);
    assert.equal(listed.length, 1, "one listing for three queries");
    const writer = openSqlite(fixture.db, {});
    writer.exec("CREATE TABLE added (n INTEGER)");
    sizes.refresh(100);
    assert.equal(listed.length, 2);
    assert.ok(sizes.tables.has("added"));
    writer.close();
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseSizes never counts a virtual table, whose module would run the file's SQL, and works under the " +
    "read-mode authorizer",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const writer = openSqlite(fixture.db, {});
    // Reading the content view fails: a count that ran it would throw.
    writer.exec(`CREATE VIEW broken AS SELECT id, json('not json') AS name FROM customers;
      CREATE VIRTUAL TABLE docs USING fts5(name, content='broken', content_rowid='id');`);
    writer.close();
    const db = openDatabase(fixture.db, false);
    const sizes = new DatabaseSizes(db);
    const authorizer = new Authorizer({ mode: "read", allowRecursive: false, pragmas: PRICING_PRAGMAS });
    try {
      withAuthorizer(db, authorizer, "run query", () => {
        sizes.refresh(100);
        assert.ok(sizes.tables.has("docs"));
        assert.equal(sizes.countable("DOCS"), false);
        assert.equal(sizes.rows("docs"), 100, "priced at the cap, never counted");
        assert.equal(sizes.countable("docs_data"), true, "its shadow tables are stored tables");
        assert.equal(sizes.countable("orders"), true);
        assert.equal(sizes.rows("orders"), 3);
        assert.ok(sizes.pages() >= 1);
      });
      assert.equal(authorizer.denied, undefined);
      assert.throws(() => db.prepare("SELECT count(*) FROM docs").get(), /malformed JSON/, "what a count would meet");
    } finally {
      db.close();
      fixture.remove();
    }
  },
});
