import assert from "node:assert/strict";
import { tokenizeSql } from "@forge/toolkit/validate";
import { openSqlite, type Sqlite } from "./_sqlite.ts";
import { EQUALITY_ROWS, queryCost } from "./query_cost.ts";

function withDb(fn: (db: Sqlite) => void): () => void {
  return () => {
    const db = openSqlite(":memory:", {});
    db.exec(`CREATE TABLE t (n INTEGER); CREATE TABLE u (id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
      CREATE INDEX u_k ON u (k); CREATE VIEW v AS SELECT x.n FROM t x, t y;`);
    try {
      fn(db);
    } finally {
      db.close();
    }
  };
}

const nestsOf = (db: Sqlite, sql: string) => queryCost(db, sql, tokenizeSql(sql)).nests;

Deno.test(
  "queryCost() prices a cross join as the product of its tables, through any alias",
  withDb((db) => {
    assert.deepEqual(nestsOf(db, "SELECT count(*) FROM t a, t AS b, t"), [[["t"], ["t"], ["t"]]]);
    assert.deepEqual(nestsOf(db, 'SELECT count(*) FROM t "x y", u'), [[["t"], ["u"]]]);
  }),
);

Deno.test(
  "queryCost() prices a lookup by rowid as 1 and by index equality as SQLite's guess, a range as the table",
  withDb((db) => {
    assert.deepEqual(nestsOf(db, "SELECT * FROM t JOIN u ON u.id = t.n"), [[["t"], 1]]);
    assert.deepEqual(nestsOf(db, "SELECT * FROM t JOIN u ON u.k = t.n"), [[["t"], EQUALITY_ROWS]]);
    assert.deepEqual(nestsOf(db, "SELECT * FROM t JOIN u ON u.k > t.n"), [[["t"], ["u"]]]);
  }),
);

Deno.test(
  "queryCost() leaves a single scan to the deadline, and multiplies a correlated subquery by the loop around it",
  withDb((db) => {
    assert.deepEqual(nestsOf(db, "SELECT * FROM t"), []);
    assert.deepEqual(nestsOf(db, "SELECT 1"), []);
    assert.deepEqual(nestsOf(db, "SELECT (SELECT count(*) FROM u WHERE u.v = t.n) FROM t"), [[["u"], ["t"]]]);
  }),
);

Deno.test(
  "queryCost() prices names it cannot tie to one table as the largest: CTEs, views' inner aliases, reused aliases",
  withDb((db) => {
    assert.deepEqual(nestsOf(db, "WITH c AS MATERIALIZED (SELECT * FROM t) SELECT * FROM c, c AS d"), [[[], []]]);
    assert.deepEqual(nestsOf(db, "SELECT count(*) FROM v"), [[[], []]]);
    // The subquery is flattened: both loops read "a", which names t in one place and u in the other.
    assert.deepEqual(nestsOf(db, "SELECT * FROM (SELECT 1 FROM t a), u a"), [[["t", "u"], ["t", "u"]]]);
    assert.deepEqual(nestsOf(db, "SELECT * FROM json_each('[1]'), t"), [[["t"], []]]);
  }),
);

Deno.test(
  "queryCost() cannot be talked down by an alias that reads like SQLite's own plan words",
  withDb((db) => {
    assert.deepEqual(nestsOf(db, 'SELECT count(*) FROM t AS "CONSTANT ROW", t b'), [[[], ["t"]]]);
    const spoof = 'SELECT * FROM t JOIN u AS "u USING INTEGER PRIMARY KEY (rowid=?)" ON "u USING INTEGER PRIMARY ' +
      'KEY (rowid=?)".k > t.n';
    // Priced by the last of SQLite's words (a range on u_k), and the alias still leads to u: not 1.
    assert.deepEqual(nestsOf(db, spoof), [[["t"], ["u"]]]);
  }),
);
