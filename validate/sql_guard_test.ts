// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { PolicyError } from "./policy_error.ts";
import { queryReadOnly } from "./read_only_query.ts";
import { assertReadOnlySql } from "./sql_guard.ts";

// A real SQLite file, and a second one outside the tool's reach holding a
// canary that must never show up in any result or message.
const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "sql_" }));
const file = join(dir, "shop.db");
const otherFile = join(dir, "other.db");
const CANARY = `CANARY-${crypto.randomUUID()}`;
{
  const db = new DatabaseSync(file);
  db.exec(`CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT);
    INSERT INTO items VALUES (1, 'apple'), (2, 'banana'), (3, 'cherry');
    CREATE TABLE odd("delete" TEXT, [select] TEXT);
    INSERT INTO odd VALUES ('d', 's');`);
  db.close();
  const other = new DatabaseSync(otherFile);
  other.exec(`CREATE TABLE secret(value TEXT); INSERT INTO secret VALUES ('${CANARY}');`);
  other.close();
}
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms = { read: [dir], write: [dir] };

const accepted: [string, unknown[] | Record<string, string> | undefined, number][] = [
  ["SELECT id, name FROM items ORDER BY id", undefined, 3],
  ["select * from items where id = ?", [1], 1],
  ["SELECT name FROM items WHERE name = :name", { name: "apple" }, 1],
  ["SELECT name FROM items WHERE name = @name OR name = $other", { name: "apple", other: "banana" }, 2],
  ["WITH t AS (SELECT id FROM items) SELECT count(*) AS n FROM t", undefined, 1],
  ["WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5) SELECT x FROM c", undefined, 5],
  ["EXPLAIN QUERY PLAN SELECT * FROM items WHERE id = 1", undefined, 1],
  ["SELECT 1 AS one;", undefined, 1],
  ["SELECT 1 AS one; -- a trailing comment", undefined, 1],
  ["SELECT 'DROP TABLE items; DELETE FROM items' AS s", undefined, 1],
  ['SELECT "delete", [select] FROM odd', undefined, 1],
  ["SELECT replace(name, 'a', 'o') AS r FROM items", undefined, 3],
  ["/* DELETE FROM items; */ SELECT 1 AS one", undefined, 1],
  ["PRAGMA table_info(items)", undefined, 2],
  ["PRAGMA main.table_info('items')", undefined, 2],
  ["PRAGMA user_version", undefined, 1],
  ["SELECT name FROM pragma_table_info('items')", undefined, 2],
  ["SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", undefined, 2],
  // Strings that spell a refused name are only names where a table name goes.
  ["SELECT 'edit' AS a WHERE 'x' <> 'load_extension'", undefined, 1],
  ["SELECT 'pragma_database_list' LIKE 'pragma_%' AS a", undefined, 1],
];

const refused: [string, string][] = [
  ["", "the SQL is empty"],
  ["   -- only a comment", "the SQL is empty"],
  [";;", "the SQL is empty"],
  ["DELETE FROM items", "only SELECT"],
  ["dElEtE FROM items", "only SELECT"],
  ["SELECT 1; DELETE FROM items", "exactly one statement is allowed, found 2"],
  ["SELECT 1;DROP TABLE items", "exactly one statement"],
  ["SELECT 1 -- comment ends here\n; DELETE FROM items", "exactly one statement"],
  ["SELECT 1 UNION SELECT 2; SELECT 3", "exactly one statement"],
  ["BEGIN; SELECT 1; COMMIT", "exactly one statement"],
  ["WITH x AS (SELECT 1) DELETE FROM items", "DELETE is not allowed"],
  ["WITH x AS (SELECT 1) INSERT INTO items SELECT 9, 'x'", "INSERT is not allowed"],
  ["INSERT INTO items VALUES (9, 'x')", "only SELECT"],
  ["UPDATE items SET name = 'x'", "only SELECT"],
  ["REPLACE INTO items VALUES (1, 'x')", "only SELECT"],
  ["SELECT * FROM items WHERE id IN (SELECT 1) AND 0 UNION SELECT 1, 2 RETURNING *", "RETURNING is not allowed"],
  [`ATTACH DATABASE '${otherFile}' AS o`, "only SELECT"],
  ["DETACH DATABASE main", "only SELECT"],
  ["PRAGMA user_version = 7", "PRAGMA assignments are not allowed"],
  ["PRAGMA user_version(7)", "is not a read-only schema PRAGMA"],
  ["PRAGMA journal_mode = WAL", "PRAGMA assignments are not allowed"],
  ["PRAGMA writable_schema", "is not a read-only schema PRAGMA"],
  ["PRAGMA database_list", "is not a read-only schema PRAGMA"],
  ["SELECT * FROM pragma_database_list", '"pragma_database_list" is not a read-only schema PRAGMA'],
  ["SELECT load_extension('/tmp/evil.so')", '"load_extension" is not allowed'],
  ["SELECT LOAD_EXTENSION('/tmp/evil.so')", '"load_extension" is not allowed'],
  [`SELECT "load_extension"('/tmp/evil.so')`, '"load_extension" is not allowed'],
  ["SELECT `Load_Extension`('/tmp/evil.so')", '"load_extension" is not allowed'],
  ["SELECT [load_extension]('/tmp/evil.so')", '"load_extension" is not allowed'],
  ['SELECT * FROM "pragma_database_list"', '"pragma_database_list" is not a read-only schema PRAGMA'],
  ['SELECT * FROM main."pragma_database_list"', '"pragma_database_list" is not a read-only schema PRAGMA'],
  ["SELECT * FROM [pragma_function_list]", '"pragma_function_list" is not a read-only schema PRAGMA'],
  [`SELECT * FROM "fsdir"('/')`, '"fsdir" is not allowed'],
  // SQLite takes a string literal as a table name in FROM.
  ["SELECT * FROM 'pragma_database_list'", '"pragma_database_list" is not a read-only schema PRAGMA'],
  ["SELECT ?FROM 'pragma_database_list'", '"pragma_database_list" is not a read-only schema PRAGMA'], // `?` takes digits only
  ["SELECT * FROM main.'pragma_compile_options'", '"pragma_compile_options" is not a read-only schema PRAGMA'],
  ["SELECT * FROM 'sqlite_dbpage'('main')", '"sqlite_dbpage" is not allowed'],
  ["SELECT * FROM 'Load_Extension'", '"load_extension" is not allowed'],
  // SQLite reads `$a(…)` as one parameter up to the `)`: what follows must not hide from the guard.
  ["SELECT $a(') AS v, * FROM pragma_database_list -- '", 'the parameter "$a" is followed by "("'],
  ["SELECT :a(')x,*FROM/**/pragma_compile_options--'", 'the parameter ":a" is followed by "("'],
  ["SELECT @a::b", 'the parameter "@a" is followed by ":"'],
  ["SELECT readfile('/etc/passwd')", '"readfile" is not allowed'],
  ["SELECT writefile('/tmp/x', 'y')", '"writefile" is not allowed'],
  ["SELECT * FROM fsdir('/')", '"fsdir" is not allowed'],
  ["SELECT * FROM sqlite_dbpage", '"sqlite_dbpage" is not allowed'],
  ["CREATE TABLE t(x)", "only SELECT"],
  ["DROP TABLE items", "only SELECT"],
  ["VACUUM INTO '/tmp/copy.db'", "only SELECT"],
  ["ANALYZE", "only SELECT"],
  ["SAVEPOINT a", "only SELECT"],
  ["EXPLAIN DELETE FROM items", "only SELECT"],
  ["DELETE/**/FROM items", "only SELECT"],
  ["SELECT 'unterminated", "the string literal is not closed"],
  ["SELECT 1 /* unterminated", "the comment is not closed"],
  ['SELECT "unterminated', "the quoted identifier is not closed"],
  ["SELECT [unterminated", "the bracketed identifier is not closed"],
  ["SELECT 1\0; DROP TABLE items", "the SQL contains a NUL byte"],
  ["SELECT 1 # comment", 'unexpected character "#"'],
  ["SELECT :", 'a parameter name is missing after ":"'],
  [`SELECT '${"x".repeat(100_001)}'`, "the SQL is longer than 100000 characters"],
];

for (const [sql, params, count] of accepted) {
  Deno.test({
    name: `queryReadOnly() runs a read: ${sql.slice(0, 70)}`,
    permissions: { read: [file] },
    fn() {
      const db = new DatabaseSync(file, { readOnly: true });
      try {
        const { rows, truncated } = queryReadOnly(db, sql, { params: params as never });
        assert.equal(rows.length, count, JSON.stringify(rows));
        assert.equal(truncated, false);
        assert.ok(!JSON.stringify(rows).includes(CANARY));
      } finally {
        db.close();
      }
    },
  });
}

for (const [sql, reason] of refused) {
  Deno.test({
    name: `assertReadOnlySql() refuses: ${JSON.stringify(sql.slice(0, 60))}`,
    permissions: perms,
    fn() {
      // A read-write handle: the guard alone must stop these.
      const db = new DatabaseSync(file);
      try {
        const err = (() => {
          try {
            queryReadOnly(db, sql);
          } catch (e) {
            return e;
          }
        })();
        assert.ok(err instanceof PolicyError, `not refused: ${sql.slice(0, 80)}`);
        assert.equal(err.code, "sql");
        assert.match(err.message, /^Cannot run query: /);
        assert.ok(err.message.includes(reason), err.message);
        assert.ok(err.message.length < 200, "the message quotes hostile input whole");
        assert.ok(!err.message.includes(CANARY));
        assert.equal((db.prepare("SELECT count(*) AS n FROM items").get() as { n: number }).n, 3);
      } finally {
        db.close();
      }
    },
  });
}

Deno.test({
  name: "queryReadOnly() caps rows and says so",
  permissions: { read: [file] },
  fn() {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const result = queryReadOnly(db, "SELECT id FROM items ORDER BY id", { maxRows: 2 });
      assert.deepEqual(result.rows.map((r) => r.id), [1, 2]);
      assert.equal(result.truncated, true);
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "queryReadOnly() binds parameters and never splices them into the SQL",
  permissions: { read: [file] },
  fn() {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const hostile = "x' OR '1'='1";
      assert.deepEqual(queryReadOnly(db, "SELECT id FROM items WHERE name = ?", { params: [hostile] }).rows, []);
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "queryReadOnly() reports SQLite's own error as a refusal",
  permissions: { read: [file] },
  fn() {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      assert.throws(
        () => queryReadOnly(db, "SELECT nope FROM items"),
        /^PolicyError: Cannot run query: no such column: nope$/,
      );
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "node:sqlite prepare() silently ignores a second statement, which is why the guard counts them",
  permissions: { read: [file] },
  fn() {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      assert.deepEqual(db.prepare("SELECT 1 AS a; SELECT 2 AS b").all().map((r) => ({ ...r })), [{ a: 1 }]);
      assert.throws(() => assertReadOnlySql("SELECT 1 AS a; SELECT 2 AS b"), PolicyError);
    } finally {
      db.close();
    }
  },
});

// The other layers: a read-only handle and Deno's scoped permissions stop a
// write that bypasses the guard.
Deno.test({
  name: "a read-only handle stops a write that bypasses the guard",
  permissions: { read: [file] },
  fn() {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      assert.throws(() => db.exec("DELETE FROM items"), /readonly database/);
      assert.throws(() => db.exec(`ATTACH DATABASE '${otherFile}' AS o`));
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "Deno's --allow-read=<db> alone refuses to open the database for writing",
  permissions: { read: [file] },
  fn() {
    assert.throws(() => new DatabaseSync(file), Deno.errors.NotCapable);
  },
});

Deno.test("assertReadOnlySql() reads keywords as SQLite does: a long s does not spell SELECT", () => {
  // "ſ".toUpperCase() is "S" in JavaScript; SQLite folds ASCII letters only and reads ſelect as a name.
  assert.throws(() => assertReadOnlySql("ſelect 1"), /^PolicyError: Cannot run query: only SELECT/);
  assert.doesNotThrow(() => assertReadOnlySql("select 1"));
});
