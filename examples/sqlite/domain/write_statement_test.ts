import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { classifyWrite } from "./write_statement.ts";

const MAX = 10_000;

Deno.test("classifyWrite() names the statement class and table of each accepted write", () => {
  const cases: [string, string, string[]][] = [
    ["INSERT INTO users (name) VALUES (?)", "INSERT", ["sql:insert:users"]],
    ['insert into "Users" values (1)', "INSERT", ["sql:insert:users"]],
    ["INSERT INTO main.users DEFAULT VALUES", "INSERT", ["sql:insert:users"]],
    ["INSERT OR IGNORE INTO users VALUES (1)", "INSERT", ["sql:insert:users"]],
    ["INSERT OR REPLACE INTO users VALUES (1)", "INSERT", ["sql:delete:users", "sql:insert:users"]],
    ["REPLACE INTO users VALUES (1)", "REPLACE", ["sql:delete:users", "sql:insert:users"]],
    [
      "INSERT INTO users (id, n) VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
      "INSERT",
      ["sql:insert:users", "sql:update:users"],
    ],
    ["UPDATE users SET name = ? WHERE id = ?", "UPDATE", ["sql:update:users"]],
    ["UPDATE OR REPLACE [users] SET id = 2", "UPDATE", ["sql:delete:users", "sql:update:users"]],
    ["DELETE FROM `users` WHERE id = :id;", "DELETE", ["sql:delete:users"]],
    ["WITH old AS (SELECT id FROM users WHERE x < 3) DELETE FROM users WHERE id IN old", "DELETE", [
      "sql:delete:users",
    ]],
    ["CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)", "CREATE", ["sql:ddl:notes"]],
    ["CREATE UNIQUE INDEX IF NOT EXISTS by_email ON users (email)", "CREATE", ["sql:ddl:users"]],
    ["CREATE VIEW recent AS SELECT * FROM users", "CREATE", ["sql:ddl:recent"]],
    ["DROP TABLE IF EXISTS notes", "DROP", ["sql:ddl:notes"]],
    ["DROP VIEW recent", "DROP", ["sql:ddl:recent"]],
    ["DROP INDEX by_email", "DROP", []],
    ["ALTER TABLE users ADD COLUMN age INTEGER", "ALTER", ["sql:ddl:users"]],
    ["ALTER TABLE users RENAME TO people", "ALTER", ["sql:ddl:people", "sql:ddl:users"]],
    ["ALTER TABLE users RENAME COLUMN name TO full_name", "ALTER", ["sql:ddl:users"]],
    ["INSERT INTO t VALUES ('ATTACH; PRAGMA; VACUUM') -- DROP TABLE x", "INSERT", ["sql:insert:t"]],
    ["INSERT INTO audit (action, note) VALUES ('edit', 'pragma_x')", "INSERT", ["sql:insert:audit"]],
  ];
  for (const [sql, verb, patterns] of cases) assert.deepEqual(classifyWrite(sql, MAX), { verb, patterns }, sql);
});

Deno.test("classifyWrite() refuses what a write may never do, each with its reason", () => {
  const cases: [string, RegExp][] = [
    ["INSERT INTO t VALUES (1); DELETE FROM t", /exactly one statement is allowed, found 2/],
    ["", /the SQL is empty/],
    ["-- only a comment", /the SQL is empty/],
    ["ATTACH DATABASE '/tmp/canary.db' AS c", /ATTACH is not allowed/],
    ["INSERT INTO canary.secrets VALUES (1)", /only the main database can be changed, not "canary"/],
    ["INSERT INTO temp.t VALUES (1)", /only the main database can be changed, not "temp"/],
    ["DETACH c", /DETACH is not allowed/],
    ["PRAGMA journal_mode = DELETE", /PRAGMA is not allowed/],
    ["PRAGMA writable_schema = 1", /PRAGMA is not allowed/],
    ["VACUUM INTO '/tmp/copy.db'", /VACUUM \(and VACUUM INTO\) is not allowed/],
    ["VACUUM", /VACUUM/],
    ["REINDEX t", /REINDEX is not allowed/],
    ["ANALYZE", /ANALYZE is not allowed/],
    ["INSERT INTO t VALUES (load_extension('x'))", /"load_extension" is not allowed/],
    ["INSERT INTO t SELECT readfile('/etc/passwd')", /"readfile" is not allowed/],
    ["INSERT INTO t SELECT * FROM pragma_database_list", /"pragma_database_list" is not allowed/],
    ['INSERT INTO t SELECT file FROM "pragma_database_list"', /"pragma_database_list" is not allowed/],
    ["INSERT INTO t VALUES ([load_extension]('x'))", /"load_extension" is not allowed/],
    ["INSERT INTO t SELECT file FROM 'pragma_database_list'", /"pragma_database_list" is not allowed/],
    ["INSERT INTO t SELECT $a(') , file FROM pragma_database_list -- '", /the parameter "\$a" is followed by "\("/],
    ["INSERT INTO t VALUES (1) RETURNING id", /RETURNING is not supported/],
    ["BEGIN", /transactions are not allowed/],
    ["COMMIT", /transactions are not allowed/],
    ["SAVEPOINT a", /transactions are not allowed/],
    ["SELECT * FROM t", /only reads: use run_query/],
    ["WITH x AS (SELECT 1) SELECT * FROM x", /only reads: use run_query/],
    ["CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM u; END", /exactly one statement|triggers/],
    ["CREATE TRIGGER tr AFTER INSERT ON t BEGIN SELECT 1 END", /triggers cannot be created/],
    ["DROP TRIGGER tr", /triggers cannot be created or dropped/],
    ["CREATE TEMP TABLE t (x)", /temporary tables/],
    ["CREATE VIRTUAL TABLE t USING fts5(x)", /virtual tables are not allowed/],
    ["CREATE UNIQUE TABLE t (x)", /CREATE "UNIQUE" is not allowed/],
    ["CREATE INDEX i", /must name its table with ON/],
    ["INSERT users VALUES (1)", /INSERT must be followed by INTO/],
    ["DELETE users", /DELETE must be followed by FROM/],
    ["ALTER INDEX i", /ALTER must be followed by TABLE/],
    ["INSERT INTO", /a table name is missing/],
    ['INSERT INTO "odd name" VALUES (1)', /"odd name" cannot be named in a permission pattern/],
    ["DELETE FROM sqlite_sequence", /"sqlite_sequence" is one of SQLite's own tables/],
    ["UPDATE sqlite_master SET sql = 'x'", /one of SQLite's own tables/],
    ["GRANT ALL", /only INSERT, REPLACE, UPDATE, DELETE, CREATE, DROP and ALTER are allowed, not "GRANT"/],
    ["INSERT INTO t VALUES ('unclosed)", /the string literal is not closed/],
    ["INSERT INTO t VALUES ('\0')", /NUL byte/],
    [`INSERT INTO t VALUES ('${"x".repeat(MAX)}')`, /longer than 10000 characters/],
  ];
  for (const [sql, reason] of cases) {
    assert.throws(() => classifyWrite(sql, MAX), (err: Error) => {
      assert.ok(err instanceof PolicyError, sql);
      assert.match(err.message, /^Cannot execute: /, sql);
      assert.match(err.message, reason, sql);
      return true;
    });
  }
});
