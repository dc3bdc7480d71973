import assert from "node:assert/strict";
import { tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
import { openSqlite, type Sqlite } from "./sqlite.ts";
import { DatabaseSizes } from "./database_sizes.ts";
import { PolicyError } from "@forge/toolkit/validate";
import { assertAffordable, EQUALITY_ROWS, explainQueryPlan, JSON_ROWS, queryCost, UNKNOWN_ROWS } from "./query_cost.ts";

/** t: 30 rows, u: 20 rows (indexed on k), w: 2,000 rows, e: none, v: a view over w × w with inner aliases x and y. */
function withDb(fn: (db: Sqlite, nestsOf: (sql: string) => number[][]) => void): () => void {
  return () => {
    const db = openSqlite(":memory:", {});
    db.exec(`CREATE TABLE t (n INTEGER); CREATE TABLE u (id INTEGER PRIMARY KEY, k INTEGER, v TEXT);
      CREATE TABLE w (n INTEGER); CREATE TABLE e (n INTEGER); CREATE INDEX u_k ON u (k); CREATE VIEW v AS SELECT x.n FROM w x, w y;
      WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 2000)
        INSERT INTO w SELECT n FROM c;
      INSERT INTO t SELECT n FROM w LIMIT 30; INSERT INTO u (k, v) SELECT n, n FROM w LIMIT 20;`);
    const sizes = new DatabaseSizes(db);
    const views = db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'view'").all().map((row) => String(row.sql));
    const nestsOf = (sql: string) => {
      sizes.refresh(1e12);
      return queryCost(explainQueryPlan(db, sql), tokenizeSql(sql), sizes, { views });
    };
    try {
      fn(db, nestsOf);
    } finally {
      db.close();
    }
  };
}

Deno.test(
  "queryCost() prices a cross join as the product of its tables' rows, through any alias",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf("SELECT count(*) FROM t a, t AS b, t"), [[30, 30, 30]]);
    assert.deepEqual(nestsOf('SELECT count(*) FROM t "x y", u'), [[30, 20]]);
  }),
);

Deno.test(
  "queryCost() prices a lookup by rowid as 1 and by index equality as SQLite's guess, a range as the table",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf("SELECT * FROM t JOIN u ON u.id = t.n"), [[30, 1]]);
    assert.deepEqual(nestsOf("SELECT * FROM t JOIN u ON u.k = t.n"), [[30, EQUALITY_ROWS]]);
    assert.deepEqual(nestsOf("SELECT * FROM t JOIN u ON u.k > t.n"), [[30, 20]]);
  }),
);

Deno.test(
  "queryCost() prices a lookup an IN list drives once per item of the list, whether a table or a subquery feeds it",
  withDb((_db, nestsOf) => {
    // `u.id IN (SELECT id FROM u)`: SQLite reads u's rowids to drive the lookup (USING ROWID SEARCH … FOR IN-OPERATOR).
    const byTable = nestsOf("SELECT count(*) FROM t JOIN u ON u.id IN (SELECT id FROM u)");
    assert.ok(byTable.some((nest) => nest.includes(30) && nest.includes(20)), JSON.stringify(byTable));
    // A filtered subquery: LIST SUBQUERY, as dear as its own scan.
    const bySubquery = nestsOf("SELECT count(*) FROM t JOIN u ON u.id IN (SELECT n FROM w WHERE n > 5)");
    assert.ok(bySubquery.some((nest) => nest.includes(30) && nest.includes(2000)), JSON.stringify(bySubquery));
    // A list of values, and a plain lookup, stay one lookup each.
    assert.deepEqual(nestsOf("SELECT * FROM t JOIN u ON u.id = t.n"), [[30, 1]]);
  }),
);

Deno.test(
  "queryCost() prices a lookup a literal IN list may drive once per item of the longest list, up to its table's rows",
  withDb((_db, nestsOf) => {
    // SQLite plans these as a plain `SEARCH u USING INTEGER PRIMARY KEY (rowid=?)`, with no FOR IN-OPERATOR line.
    assert.deepEqual(nestsOf("SELECT count(*) FROM t, u WHERE u.id IN (1, abs(-2), 3)"), [[3, 30]]);
    assert.deepEqual(nestsOf("SELECT count(*) FROM t, u WHERE u.k IN (1, 2, 3, 4, 5)"), [[EQUALITY_ROWS * 5, 30]]);
    const list = Array.from({ length: 600 }, (_, i) => i).join(", ");
    assert.deepEqual(nestsOf(`SELECT count(*) FROM u a, u b WHERE a.id IN (${list}) AND b.id IN (${list})`), [[
      20,
      20,
    ]]);
  }),
);

Deno.test(
  "queryCost() multiplies the IN lists that feed one index lookup, and prices the lookup they drive even alone",
  withDb((db, nestsOf) => {
    db.exec(`CREATE TABLE m (a INTEGER, b INTEGER, c INTEGER); CREATE INDEX m_abc ON m (a, b, c);
      INSERT INTO m SELECT n, n, n FROM w LIMIT 30;`);
    // SEARCH m USING COVERING INDEX m_abc (a=? AND b=?), fed by two FOR IN-OPERATOR lines over u (20 rows): SQLite
    // probes every pair, 20 × 20 lookups, with nothing else at its level.
    const pair = "SELECT count(*) FROM m WHERE a IN (SELECT id FROM u) AND b IN (SELECT id FROM u)";
    assert.deepEqual(nestsOf(pair), [[EQUALITY_ROWS * 20 * 20]]);
    assert.throws(() => assertAffordable(nestsOf(pair), 1_000), PolicyError);
    const three = "SELECT count(*) FROM u AS one, m WHERE one.id = 1 AND m.a IN (SELECT id FROM u) AND " +
      "m.b IN (SELECT id FROM u) AND m.c IN (SELECT id FROM u)";
    assert.deepEqual(nestsOf(three), [[1, EQUALITY_ROWS * 20 * 20 * 20]]);
    // Literal lists, which the plan does not name: the longest list to the power of the lookup's `=?` columns, at
    // most as many as the statement has lists.
    assert.deepEqual(nestsOf("SELECT count(*) FROM m WHERE a IN (1, 2, 3) AND b IN (1, 2, 3, 4)"), [[
      EQUALITY_ROWS * 4 * 4,
    ]]);
    assert.deepEqual(nestsOf("SELECT count(*) FROM m WHERE a IN (1, 2, 3, 4) AND b = 5"), [[EQUALITY_ROWS * 4]]);
    // Two lists beside a one-column lookup: one drives it, the other filters the rows found (a red team's
    // `id IN (…) AND a IN (…)` was priced 400,000,000 and ran in 8 ms).
    const filtered = "SELECT count(*) FROM m WHERE rowid IN (SELECT id FROM u) AND a IN (SELECT id FROM u)";
    const plan = explainQueryPlan(db, filtered).map((row) => row.detail).join("\n");
    assert.match(plan, /SEARCH m USING INTEGER PRIMARY KEY \(rowid=\?\)/);
    assert.deepEqual(nestsOf(filtered), [[20]]);
    // A lookup no list drives, alone, is still left to the deadline.
    assert.deepEqual(nestsOf("SELECT count(*) FROM m WHERE a = 1 AND b = 2"), []);
  }),
);

Deno.test(
  "queryCost() leaves a single scan to the deadline, and multiplies a correlated subquery by the loop around it",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf("SELECT * FROM t"), []);
    assert.deepEqual(nestsOf("SELECT 1"), []);
    assert.deepEqual(nestsOf("SELECT value FROM json_each(?)"), []);
    assert.deepEqual(nestsOf("SELECT (SELECT count(*) FROM u WHERE u.v = t.n) FROM t"), [[20, 30]]);
  }),
);

Deno.test(
  "queryCost() prices json_each and json_tree by the most rows 1 MiB of input holds, through any alias or schema",
  withDb((_db, nestsOf) => {
    assert.equal(JSON_ROWS, 2 ** 20);
    assert.deepEqual(nestsOf("SELECT * FROM json_each('[1]'), t"), [[30, JSON_ROWS]]);
    assert.deepEqual(nestsOf("SELECT * FROM t, json_tree(t.n) AS j"), [[30, JSON_ROWS]]);
    assert.deepEqual(nestsOf('SELECT * FROM main.json_each(?) a, "json_each"(?) b'), [[JSON_ROWS, JSON_ROWS]]);
    // Flattened subqueries over them are the same loops.
    assert.deepEqual(
      nestsOf("SELECT count(*) FROM (SELECT value FROM json_each(?)) x, (SELECT value FROM json_each(?)) y"),
      [[JSON_ROWS, JSON_ROWS]],
    );
  }),
);

Deno.test(
  "queryCost() prices pragma_* functions by the schema and dbstat by the file's pages",
  withDb((db, nestsOf) => {
    assert.deepEqual(nestsOf("SELECT * FROM t, pragma_table_info('t') p"), [[30, 2000]]);
    const pages = Number(db.prepare("PRAGMA page_count").get()?.page_count);
    assert.deepEqual(nestsOf("SELECT * FROM t, dbstat d"), [[30, pages]]);
  }),
);

Deno.test(
  "queryCost() prices a CTE or subquery loop by the loops that build it, a UNION's parts added up",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf("WITH c AS MATERIALIZED (SELECT * FROM t) SELECT * FROM c, c AS d"), [[30, 30]]);
    assert.deepEqual(
      nestsOf("WITH a AS MATERIALIZED (SELECT value FROM json_each(?)) SELECT count(*) FROM a x, a y"),
      [[JSON_ROWS, JSON_ROWS]],
    );
    assert.deepEqual(
      nestsOf("WITH a AS (SELECT value FROM json_each(?) UNION ALL SELECT n FROM t) SELECT count(*) FROM a x, a y"),
      [[JSON_ROWS + 30, JSON_ROWS + 30]],
    );
    // The co-routine's own nest (t × t) is priced too, and the loop over it by that product (LIMIT aside).
    assert.deepEqual(
      new Set(nestsOf("SELECT count(*) FROM u, (SELECT a.n FROM t a, t b ORDER BY 1 LIMIT 5) s")),
      new Set([[900, 20], [30, 30]]),
    );
  }),
);

Deno.test(
  "queryCost() adds up the parts of a UNION, EXCEPT or INTERSECT that SQLite merges (sorted, not a compound query)",
  withDb((_db, nestsOf) => {
    for (const op of ["UNION", "EXCEPT", "INTERSECT"]) {
      const sql = `SELECT count(*) FROM (SELECT a.n * 100 + b.n FROM t a, t b ${op} SELECT n FROM w) x, u`;
      assert.deepEqual(new Set(nestsOf(sql)), new Set([[30, 30], [900 + 2000, 20]]), op);
    }
  }),
);

Deno.test(
  "queryCost() prices a MULTI-INDEX OR as one loop: its parts' lookups added up, once per row of the loops around it",
  withDb((_db, nestsOf) => {
    // A range on u_k and one on the rowid, each the whole of u, for each row of t.
    assert.deepEqual(nestsOf("SELECT count(*) FROM t, u WHERE u.k > t.n OR u.id > t.n"), [[30, 20 + 20]]);
    // An IN list drives its part's lookup once per item (SQLite names it before the lookup there).
    assert.deepEqual(
      nestsOf("SELECT count(*) FROM t, u WHERE u.k IN (SELECT n FROM w WHERE n > 5) OR u.id > t.n"),
      [[30, 2000 * EQUALITY_ROWS + 20]],
    );
    // A correlated subquery inside a part runs once per row of the loops around the OR.
    assert.deepEqual(
      nestsOf("SELECT count(*) FROM t, u WHERE u.k > (SELECT count(*) FROM w WHERE w.n > t.n) OR u.id > t.n"),
      [[30, 40], [2000, 20, 30]],
    );
  }),
);

Deno.test(
  "queryCost() multiplies a correlated subquery in a co-routine by the loops around the correlated subquery holding it",
  withDb((_db, nestsOf) => {
    // The co-routine runs again for each row of t, and so does the subquery over c inside it.
    const sql = "SELECT (SELECT max(z) FROM (SELECT (SELECT count(*) FROM w c WHERE c.n > b.n) AS z FROM w b " +
      "WHERE b.n > t.n LIMIT 100000)) AS m FROM t";
    assert.deepEqual(nestsOf(sql), [[2000, 30], [2000, 30], [2000, 2000, 30]]);
    // A subquery SQLite does not call correlated runs once, wherever it sits: x × y is not multiplied by t.
    assert.deepEqual(
      nestsOf("SELECT (SELECT count(*) FROM u WHERE u.k = t.n AND u.v > (SELECT avg(x.n) FROM w x, w y)) FROM t"),
      [[EQUALITY_ROWS, 30], [2000, 2000]],
    );
  }),
);

Deno.test(
  "queryCost() prices a loop over an empty table as one step, and a RIGHT JOIN's pass over unmatched rows as a nest",
  withDb((_db, nestsOf) => {
    // e holds nothing, yet each row of t is kept and joined to every row of w.
    assert.deepEqual(nestsOf("SELECT count(*) FROM e RIGHT JOIN t ON 1, w"), [[1, 30, 2000], [30, 2000]]);
    // One row on the left looks u up by k; u's rows it does not match are each joined to w.
    assert.deepEqual(
      nestsOf("SELECT count(*) FROM (SELECT 1 AS n) one RIGHT JOIN u ON u.k = one.n, w"),
      [[1, EQUALITY_ROWS, 2000], [20, 2000]],
    );
  }),
);

Deno.test(
  "queryCost() reads the LEFT-JOIN and EXISTS SQLite writes after a name, and a VALUES clause by its rows",
  withDb((_db, nestsOf) => {
    // An outer join by rowid or index is a lookup, not a scan of the table.
    assert.deepEqual(nestsOf("SELECT * FROM t LEFT JOIN u ON u.id = t.n"), [[30, 1]]);
    assert.deepEqual(nestsOf("SELECT * FROM t LEFT JOIN u ON u.k = t.n"), [[30, EQUALITY_ROWS]]);
    assert.deepEqual(nestsOf("SELECT count(*) FROM t LEFT JOIN e ON e.n = t.n, w"), [[30, 2000, EQUALITY_ROWS]]);
    // `SCAN u EXISTS` scans u.
    const exists = "SELECT count(*) FROM t WHERE EXISTS (SELECT 1 FROM w WHERE w.n = t.n) AND " +
      "EXISTS (SELECT 1 FROM u WHERE u.v = t.n)";
    assert.deepEqual(nestsOf(exists), [[30, 20, EQUALITY_ROWS]]);
    // An alias that reads like those words is priced as its table.
    assert.deepEqual(nestsOf('SELECT count(*) FROM t, w AS "u LEFT-JOIN"'), [[30, 2000]]);
    assert.deepEqual(nestsOf('SELECT count(*) FROM t LEFT JOIN w AS "u EXISTS" ON 1'), [[30, 2000]]);
    // `SCAN 2500-ROW VALUES CLAUSE`: more rows than the largest table.
    const values = Array.from({ length: 2500 }, (_, i) => `(${i})`).join(", ");
    assert.deepEqual(nestsOf(`SELECT count(*) FROM (VALUES ${values}) x, t`), [[2500, 30]]);
  }),
);

Deno.test(
  "queryCost() prices each CTE once however many names read it: fourteen levels, each the last joined to itself",
  withDb((_db, nestsOf) => {
    // p and q name every level, so each level's price reads all the levels below it.
    const ctes = ["c0 AS MATERIALIZED (SELECT n FROM t)"];
    for (let i = 1; i <= 14; i++) ctes.push(`c${i} AS MATERIALIZED (SELECT p.n FROM c${i - 1} p, c${i - 1} q)`);
    const nests = nestsOf(`WITH ${ctes.join(", ")} SELECT count(*) FROM c14`);
    assert.equal(nests.length, 14);
    assert.throws(() => assertAffordable(nests, 1e12), PolicyError);
  }),
);

Deno.test(
  "queryCost() prices a view's inner aliases by the tables the view names, and an unknown loop as the largest",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf("SELECT count(*) FROM v"), [[2000, 2000]]);
    // The subquery is flattened: both loops read "a", which names t in one place and u in the other.
    assert.deepEqual(nestsOf("SELECT * FROM (SELECT 1 FROM t a), u a"), [[30, 30]]);
    assert.ok(UNKNOWN_ROWS <= 2000);
  }),
);

Deno.test(
  "queryCost() cannot be talked down by an alias that reads like SQLite's own plan words",
  withDb((_db, nestsOf) => {
    assert.deepEqual(nestsOf('SELECT count(*) FROM t AS "CONSTANT ROW", t b'), [[30, 30]]);
    // Alone in a subquery too: SQLite's own `SCAN CONSTANT ROW` (a SELECT with no FROM) is one row, w named so is not.
    const named = 'SELECT count(*) FROM (SELECT * FROM w AS "CONSTANT ROW" ORDER BY 1 LIMIT 5000) s, t';
    assert.deepEqual(nestsOf(named), [[2000, 30]]);
    assert.deepEqual(nestsOf("SELECT count(*) FROM (SELECT 1 AS k) s, t, u"), [[1, 30, 20]]);
    const spoof = 'SELECT * FROM t JOIN u AS "u USING INTEGER PRIMARY KEY (rowid=?)" ON "u USING INTEGER PRIMARY ' +
      'KEY (rowid=?)".k > t.n';
    // Priced by the last of SQLite's words (a range on u_k), and the alias still leads to u: not 1.
    assert.deepEqual(nestsOf(spoof), [[30, 20]]);
    // An alias that names a table too costs the dearer of the two.
    assert.deepEqual(nestsOf("SELECT * FROM t, json_each(?) AS t"), [[JSON_ROWS, JSON_ROWS]]);
  }),
);

Deno.test("assertAffordable() refuses the first nest that takes the sum past max_scan_rows, and shows its factors", () => {
  assertAffordable([[10, 10], [50, 2]], 200);
  assert.throws(
    () => assertAffordable([[10, 10], [1_000, 1_000]], 200_000),
    {
      name: "PolicyError",
      message: "Cannot run query: its plan would visit about 1,000,100 rows (1,000 × 1,000), more than max_scan_rows " +
        "(200,000); join on indexed columns, filter with WHERE, or join fewer tables",
    },
  );
});

Deno.test(
  "queryCost() prices json_each over an outer column at the 1 MiB bound per row, and a rowid range at the whole " +
    "table (a rowid may be negative)",
  withDb((db, nestsOf) => {
    // Known limits, kept so as not to under-price (see the README): the plan tells neither the value's length nor
    // the range's literal.
    assert.deepEqual(nestsOf("SELECT j.value FROM w, json_each(json_array(w.n, w.n)) j"), [[2_000, JSON_ROWS]]);
    assert.deepEqual(nestsOf("SELECT a.n FROM w a, w b WHERE a.rowid <= 200"), [[2_000, 2_000]]);
    // Why the literal is no bound: below 200 lie every negative rowid too.
    db.exec("INSERT INTO e (rowid, n) SELECT -n, n FROM w");
    assert.equal(db.prepare("SELECT count(*) AS n FROM e WHERE rowid <= 200").get()!.n, 2_000);
  }),
);

Deno.test(
  "queryCost() walks a plan nested 20,000 levels deep (a compile bomb's) without overflowing the stack",
  withDb((db) => {
    // Co-routines each inside the last, and at the bottom a join of t with itself: one nest of 30 × 30.
    const depth = 20_000;
    const plan = Array.from({ length: depth }, (_, i) => ({ id: i + 1, parent: i, detail: `CO-ROUTINE c${i}` }));
    plan.push({ id: depth + 1, parent: depth, detail: "SCAN t" }, { id: depth + 2, parent: depth, detail: "SCAN t" });
    const sizes = new DatabaseSizes(db);
    sizes.refresh(1e12);
    assert.deepEqual(queryCost(plan, tokenizeSql("SELECT count(*) FROM t a, t b"), sizes), [[30, 30]]);
  }),
);
