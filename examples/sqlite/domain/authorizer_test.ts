// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { Authorizer } from "./authorizer.ts";
import { openSqlite, type Sqlite } from "./sqlite.ts";
import { TMP, withFixtureDb } from "./_fixture.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };

/** Compiles `sql` under `authorizer` and returns the error message, if any. */
function compile(db: Sqlite, authorizer: Authorizer, sql: string): string | undefined {
  db.setAuthorizer(authorizer.callback);
  try {
    db.prepare(sql);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  } finally {
    db.setAuthorizer(null);
  }
}

function withDb(fn: (db: Sqlite) => void): () => void {
  return withFixtureDb((path) => openSqlite(path, { readOnly: true }), fn);
}

Deno.test({
  name: "Authorizer in plan mode names every table a write reaches, through triggers and cascades too",
  permissions: perms,
  fn: withDb((db) => {
    const plan = (sql: string) => {
      const authorizer = new Authorizer({ mode: "plan", allowRecursive: false });
      assert.equal(compile(db, authorizer, sql), undefined, sql);
      return [...authorizer.writes].sort();
    };
    assert.deepEqual(plan("INSERT INTO customers (name) VALUES ('x')"), ["sql:insert:customers", "sql:insert:log"]);
    assert.deepEqual(plan("DELETE FROM customers WHERE id = 1"), ["sql:delete:customers", "sql:delete:orders"]);
    assert.deepEqual(plan("UPDATE orders SET total = 1"), ["sql:update:orders"]);
  }),
});

Deno.test({
  name: "Authorizer in plan mode lets a schema change write SQLite's schema table, and nothing else may",
  permissions: perms,
  fn: withDb((db) => {
    const ddl = new Authorizer({ mode: "plan", allowRecursive: false, schemaChange: true });
    assert.equal(compile(db, ddl, "CREATE TABLE notes (x)"), undefined);
    assert.deepEqual([...ddl.writes], ["sql:ddl:notes"]);
    const drop = new Authorizer({ mode: "plan", allowRecursive: false, schemaChange: true });
    assert.equal(compile(db, drop, "DROP TABLE customers"), undefined);
    assert.deepEqual([...drop.writes].sort(), ["sql:ddl:customers", "sql:delete:orders"]);
    const index = new Authorizer({ mode: "plan", allowRecursive: false, schemaChange: true });
    assert.equal(compile(db, index, "DROP INDEX orders_by_customer"), undefined);
    assert.deepEqual([...index.writes], ["sql:ddl:orders"]);
    // A statement the tokenizer did not class as CREATE, DROP or ALTER may not write the schema.
    const sneaky = new Authorizer({ mode: "plan", allowRecursive: false });
    assert.match(compile(db, sneaky, "CREATE TABLE notes (x)") ?? "", /not authorized/);
    assert.match(sneaky.denied ?? "", /schema table can only change through CREATE, DROP or ALTER/);
  }),
});

Deno.test({
  name: "Authorizer in enforce mode refuses a write its patterns do not name, and says through which trigger",
  permissions: perms,
  fn: withDb((db) => {
    const strict = new Authorizer({ mode: "enforce", allowRecursive: false, allowed: ["sql:insert:customers"] });
    assert.match(compile(db, strict, "INSERT INTO customers (name) VALUES ('x')") ?? "", /not authorized/);
    assert.equal(
      strict.denied,
      'the statement would also insert into "log" (through trigger "customers_log"), which its patterns do not name',
    );
    const enough = new Authorizer({
      mode: "enforce",
      allowRecursive: false,
      allowed: ["sql:insert:customers", "sql:insert:log"],
    });
    assert.equal(compile(db, enough, "INSERT INTO customers (name) VALUES ('x')"), undefined);
  }),
});

Deno.test({
  name: "Authorizer in read mode refuses writes, file functions, non-schema PRAGMAs and (by default) recursion",
  permissions: perms,
  fn: withDb((db) => {
    const refused: [string, RegExp][] = [
      ["INSERT INTO log VALUES ('x')", /a read-only query cannot change the database/],
      ["SELECT load_extension('x')", /"load_extension" is not allowed/],
      ["SELECT * FROM pragma_database_list", /"pragma_database_list" is not a schema PRAGMA/],
      // Quoted spellings reach the authorizer as the names SQLite resolved.
      ['SELECT * FROM "pragma_database_list"', /"pragma_database_list" is not a schema PRAGMA/],
      ["SELECT * FROM [pragma_database_list]", /"pragma_database_list" is not a schema PRAGMA/],
      ["SELECT file FROM pragma_table_xinfo('orders') JOIN `pragma_database_list`", /not a schema PRAGMA/],
      ["SELECT \"load_extension\"('x')", /"load_extension" is not allowed/],
      ["PRAGMA journal_mode", /this PRAGMA is not allowed/],
      ["PRAGMA user_version = 3", /this PRAGMA is not allowed/],
      ["WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c", /allow_recursive/],
    ];
    for (const [sql, reason] of refused) {
      const authorizer = new Authorizer({ mode: "read", allowRecursive: false });
      assert.match(compile(db, authorizer, sql) ?? "", /not authorized|prohibited/, sql);
      assert.match(authorizer.denied ?? "", reason, sql);
    }
    for (
      const sql of [
        "SELECT * FROM big_orders",
        "SELECT * FROM pragma_table_xinfo('orders')",
        "PRAGMA table_info(orders)",
        "PRAGMA user_version",
      ]
    ) {
      assert.equal(compile(db, new Authorizer({ mode: "read", allowRecursive: false }), sql), undefined, sql);
    }
    // The server's own PRAGMAs, named in `pragmas`: bare only, and only for that authorizer.
    const pricing = () => new Authorizer({ mode: "read", allowRecursive: false, pragmas: ["data_version"] });
    assert.equal(compile(db, pricing(), "PRAGMA DATA_VERSION"), undefined);
    assert.match(compile(db, pricing(), "PRAGMA data_version = 1") ?? "", /not authorized/);
    assert.match(compile(db, pricing(), "PRAGMA database_list") ?? "", /not authorized/);
    assert.match(
      compile(db, new Authorizer({ mode: "read", allowRecursive: false }), "PRAGMA data_version") ?? "",
      /not authorized/,
    );
    const recursive = new Authorizer({ mode: "read", allowRecursive: true });
    assert.equal(
      compile(db, recursive, "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"),
      undefined,
    );
  }),
});
