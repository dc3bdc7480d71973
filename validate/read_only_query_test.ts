// test-process: a test bounds how much this process's resident memory grows, which other files' tests would add to
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { PolicyError } from "./policy_error.ts";
import { planReadOnlyQuery, queryReadOnly } from "./read_only_query.ts";

function memory(): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec("CREATE TABLE t(n INTEGER, s TEXT); INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')");
  return db;
}

Deno.test("queryReadOnly() binds positional and named parameters", () => {
  const db = memory();
  try {
    assert.equal(queryReadOnly(db, "SELECT s FROM t WHERE n = ?", { params: [2] }).rows[0].s, "b");
    assert.equal(queryReadOnly(db, "SELECT s FROM t WHERE n = :n", { params: { n: 3 } }).rows[0].s, "c");
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() marks a cut result and not a whole one", () => {
  const db = memory();
  try {
    assert.equal(queryReadOnly(db, "SELECT n FROM t", { maxRows: 3 }).truncated, false);
    assert.equal(queryReadOnly(db, "SELECT n FROM t", { maxRows: 2 }).truncated, true);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() refuses a write even on a writable handle", () => {
  const db = memory();
  try {
    assert.throws(() => queryReadOnly(db, "DELETE FROM t"), PolicyError);
    assert.equal(queryReadOnly(db, "SELECT count(*) AS c FROM t").rows[0].c, 3);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() honours maxLength", () => {
  const db = memory();
  try {
    assert.throws(() => queryReadOnly(db, "SELECT 1", { maxLength: 5 }), /longer than 5 characters/);
  } finally {
    db.close();
  }
});

// SQLite fails on the second row, after the first was produced.
const FAILS_MID_QUERY = "SELECT 1 AS a UNION ALL SELECT json_extract('{broken', '$')";

Deno.test("node:sqlite fact (Deno 2.9.6): iterate() ends quietly when SQLite fails mid-query, all() throws", () => {
  // If this starts failing, Deno fixed iterate() and queryReadOnly() can drop its second read.
  const db = new DatabaseSync(":memory:");
  try {
    assert.deepEqual([...db.prepare(FAILS_MID_QUERY).iterate()].map((row) => ({ ...row })), [{ a: 1 }]);
    assert.throws(() => db.prepare(FAILS_MID_QUERY).all(), /malformed JSON/);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() turns a failure mid-query into a refusal instead of a short result", () => {
  const db = memory();
  try {
    assert.throws(() => queryReadOnly(db, FAILS_MID_QUERY), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.message, "Cannot run query: malformed JSON");
      return true;
    });
    // A failure after maxRows + 1 rows cannot change a cut result: those rows came first.
    const cut = queryReadOnly(db, `SELECT n FROM t UNION ALL SELECT json_extract('{broken', '$')`, { maxRows: 2 });
    assert.deepEqual(cut.rows.map((row) => row.n), [1, 2]);
    assert.equal(cut.truncated, true);
    // A whole result is still whole after its second read.
    const whole = queryReadOnly(db, "SELECT n FROM t WHERE n > :min ORDER BY n", { params: { min: 1 }, maxRows: 5 });
    assert.deepEqual(whole.rows.map((row) => row.n), [2, 3]);
    assert.equal(whole.truncated, false);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() caps its later reads too, when a second run would return far more rows", () => {
  const db = new DatabaseSync(":memory:");
  try {
    // Three rows on the first run, 300,000 on any later one: like a writer in between, or random().
    let runs = 0;
    let produced = 0;
    db.function("bound", () => (runs++ === 0 ? 3 : 300_000));
    db.function("tick", (x) => (produced++, x));
    const sql = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < (SELECT bound())) " +
      "SELECT tick(x) AS x FROM c";
    const result = queryReadOnly(db, sql, { maxRows: 5 });
    assert.deepEqual(result.rows.map((row) => row.x), [1, 2, 3]);
    assert.equal(result.truncated, false);
    // Three sized rows, the confirming sizes capped at maxRows + 1, then exactly the three rows that fit.
    assert.ok(produced <= 3 + 6 + 3, `the later reads produced ${produced - 3} rows`);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() confirms statements with a trailing ; or comment, PRAGMAs and EXPLAIN", () => {
  const db = memory();
  try {
    assert.equal(queryReadOnly(db, "SELECT n FROM t; -- the end").rows.length, 3);
    assert.equal(queryReadOnly(db, "SELECT n FROM t -- no newline after this").rows.length, 3);
    // An unnamed column's name holds a trailing comment; the sized subquery, without it, must still find the column.
    assert.deepEqual(Object.values(queryReadOnly(db, "SELECT 1 /* one */").rows[0]), [1]);
    assert.deepEqual(Object.values(queryReadOnly(db, "SELECT 2 -- two").rows[0]), [2]);
    assert.equal(queryReadOnly(db, "/* lead */ WITH a AS (SELECT n FROM t) SELECT * FROM a ;").rows.length, 3);
    assert.equal(queryReadOnly(db, "PRAGMA table_info(t)").rows.length, 2);
    assert.ok(queryReadOnly(db, "EXPLAIN QUERY PLAN SELECT * FROM t WHERE n = ?", { params: [1] }).rows.length > 0);
    assert.equal(queryReadOnly(db, "SELECT s FROM t WHERE n = :n", { params: { n: 2 } }).rows[0].s, "b");
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() confirms with any maxRows it accepted before: Infinity, fractions, 0", () => {
  const db = memory();
  try {
    assert.equal(queryReadOnly(db, "SELECT n FROM t", { maxRows: Infinity }).rows.length, 3);
    assert.equal(queryReadOnly(db, "SELECT n FROM t WHERE n = 1", { maxRows: 1.5 }).rows.length, 1);
    assert.equal(queryReadOnly(db, "SELECT n FROM t WHERE n = 0", { maxRows: 0 }).rows.length, 0);
  } finally {
    db.close();
  }
});

/** Sixty columns of 1 MiB each: one row is 60 MiB, 101 rows are 6 GiB. */
const BOMB = `SELECT ${
  Array.from({ length: 60 }, (_, i) => `printf('%.*c', 1048000, 'x') AS c${i}`).join(", ")
} FROM t`;

function rows(n: number): DatabaseSync {
  const db = new DatabaseSync(":memory:");
  db.exec(
    `CREATE TABLE t(n INTEGER); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${n}) ` +
      "INSERT INTO t SELECT n FROM c",
  );
  return db;
}

Deno.test("queryReadOnly() reads no row of a 60 MiB-per-row query when one row is over the byte budget", () => {
  const db = rows(101);
  try {
    const before = Deno.memoryUsage().rss;
    const result = queryReadOnly(db, BOMB, { maxRows: 1000 });
    assert.deepEqual([result.rows.length, result.truncated, result.limit], [0, true, "max_bytes"]);
    const grown = Deno.memoryUsage().rss - before;
    assert.ok(grown < 256 * 2 ** 20, `RSS grew ${grown} bytes`);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() stops at the byte budget and says so, and at max_rows when that comes first", () => {
  const db = rows(50);
  try {
    const sql = "SELECT n, printf('%.*c', 1000, 'y') AS pad FROM t";
    const bytes = queryReadOnly(db, sql, { maxRows: 50, maxBytes: 10_000 });
    // Each row counts 2 columns + 2 digits at most + 1000 characters.
    assert.deepEqual([bytes.rows.length, bytes.truncated, bytes.limit], [9, true, "max_bytes"]);
    const count = queryReadOnly(db, sql, { maxRows: 5, maxBytes: 10_000 });
    assert.deepEqual([count.rows.length, count.truncated, count.limit], [5, true, "max_rows"]);
    const whole = queryReadOnly(db, sql, { maxRows: 50, maxBytes: 100_000 });
    assert.deepEqual([whole.rows.length, whole.truncated, whole.limit], [50, false, undefined]);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() measures rows again as they arrive: a second run with bigger rows is cut, not held", () => {
  const db = rows(20);
  try {
    let runs = 0;
    db.function("width", () => (runs++ < 20 ? 1 : 1_000_000));
    const result = queryReadOnly(db, "SELECT printf('%.*c', width(), 'z') AS s FROM t", { maxBytes: 10_000 });
    assert.deepEqual([result.rows.length, result.truncated, result.limit], [0, true, "max_bytes"]);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() never reads whole a row that grew past maxBytes on its second run: SQLite leaves its values out", () => {
  const db = new DatabaseSync(":memory:");
  try {
    // The first run (the sizing) sees 0, the second 1: 300 columns of one 1 MB parameter, 300 MB in JavaScript.
    let runs = 0;
    db.function("grown", () => (runs++ === 0 ? 0 : 1));
    const columns = Array.from({ length: 300 }, (_, i) => `iif(b, ?1, 0) AS c${i}`).join(", ");
    const sql = `WITH r(b) AS MATERIALIZED (SELECT grown()) SELECT ${columns} FROM r`;
    const params = ["x".repeat(1_000_000)];
    const before = Deno.memoryUsage().rss;
    const result = queryReadOnly(db, sql, { params, maxBytes: 1_048_576 });
    const grown = Deno.memoryUsage().rss - before;
    assert.deepEqual([result.rows.length, result.truncated, result.limit], [0, true, "max_bytes"]);
    assert.ok(runs >= 2, "the sizing saw 0, the second run 1");
    assert.ok(grown < 100 * 2 ** 20, `RSS grew ${grown} bytes`);
    // What the second run returns, run once more (grown() says 1 now): the plan's marker in place of every value.
    const plan = planReadOnlyQuery(db, sql, { params, maxBytes: 1_048_576 });
    const [row] = db.prepare(plan.capped!.sql).all(...params) as Record<string, unknown>[];
    assert.deepEqual(new Set(Object.values(row)), new Set([plan.capped!.marker]));
    assert.equal(Object.keys(row).length, 300);
  } finally {
    db.close();
  }
});

Deno.test("planReadOnlyQuery()'s second run marks exactly the rows past the budget, as returned, under the columns' names", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec(
      "CREATE TABLE t(k); WITH c(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM c WHERE k < 40) INSERT INTO t SELECT k FROM c",
    );
    // A new value at every call: had a column been evaluated once to be measured and again to be returned, a row
    // measured small could come back large, unmarked.
    let calls = 0;
    db.function("coin", { deterministic: false }, () => Math.floor(calls++ / 3) % 2);
    const sql = `SELECT iif(coin(), ?1, 'y') AS "v", iif(coin(), ?1, 'y') AS "V", k AS "a" FROM t ORDER BY k`;
    const params = ["x".repeat(1000)];
    const plan = planReadOnlyQuery(db, sql, { params, maxBytes: 1500 });
    const { marker } = plan.capped!;
    const rows = db.prepare(plan.capped!.sql).all(...params) as Record<string, string | number>[];
    assert.deepEqual(Object.keys(rows[0]), ["v", "V", "a"]);
    let marked = 0;
    for (const row of rows) {
      if (row.a === marker) {
        marked++;
        assert.deepEqual([row.v, row.V], [marker, marker]);
        continue;
      }
      const size = 3 + String(row.v).length + String(row.V).length + String(row.a).length;
      assert.ok(size <= 1500, `an unmarked row of ${size} bytes: ${String(row.a)}`);
    }
    assert.ok(marked > 0 && marked < rows.length, `${marked} of ${rows.length} marked`);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() refuses a result whose second run has fewer rows than its first", () => {
  const db = rows(5);
  try {
    let runs = 0;
    db.function("last", () => (runs++ < 10 ? 5 : 2));
    assert.throws(
      () => queryReadOnly(db, "SELECT n FROM t WHERE n <= last()"),
      /^PolicyError: Cannot run query: the query returned fewer rows on its second run than on its first$/,
    );
  } finally {
    db.close();
  }
});

Deno.test("planReadOnlyQuery() sizes every column, any name, in an expression SQLite accepts at 2000 columns", () => {
  const db = new DatabaseSync(":memory:");
  try {
    const odd = queryReadOnly(db, `SELECT 1 AS "a""b", 'xy' AS "", x'00ff' AS "t.c", 2.5 AS "x+1"`);
    assert.deepEqual(odd.rows.map((row) => ({ ...row })), [{
      'a"b': 1,
      "": "xy",
      "t.c": new Uint8Array([0, 255]),
      "x+1": 2.5,
    }]);
    const wide = Array.from({ length: 2000 }, (_, i) => `${i} AS c${i}`).join(", ");
    const plan = planReadOnlyQuery(db, `SELECT ${wide}`);
    assert.equal(Object.keys(queryReadOnly(db, `SELECT ${wide}`).rows[0]).length, 2000);
    assert.match(plan.sizing ?? "", /\) SELECT 2000 \+ \(\(/);
  } finally {
    db.close();
  }
});

/** Asserts the sizing statement of `sql` counts at least `min` for its row, and a 1,000-byte budget reads no row. */
function assertSizedPast(sql: string, min: number): void {
  const db = memory();
  try {
    const [{ n }] = db.prepare(planReadOnlyQuery(db, sql).sizing!).all() as { n: number }[];
    assert.ok(n >= min, `${sql}: sized as ${n}`);
    const cut = queryReadOnly(db, sql, { maxBytes: 1000 });
    assert.equal(cut.rows.length, 0);
    assert.equal(cut.limit, "max_bytes");
  } finally {
    db.close();
  }
}

Deno.test("planReadOnlyQuery() sizes a statement that reads a table named like its own subquery: the rows counted are the statement's", () => {
  const db = new DatabaseSync(":memory:");
  try {
    db.exec(
      "CREATE TABLE t(c1); INSERT INTO t VALUES ('a'), ('b'); CREATE TABLE sized(c1); " +
        "INSERT INTO sized VALUES ('S1'), ('S2'), ('S3'); CREATE TABLE Sized1(c1); INSERT INTO Sized1 VALUES ('x')",
    );
    const union = queryReadOnly(db, "SELECT c1 FROM t UNION SELECT c1 FROM sized", { maxRows: 5 });
    assert.deepEqual(union.rows.map((row) => row.c1), ["S1", "S2", "S3", "a", "b"]);
    assert.equal(union.truncated, false);
    const all = queryReadOnly(db, "SELECT c1 FROM t UNION ALL SELECT c1 FROM SIZED", { maxRows: 5 });
    assert.equal(all.rows.length, 5);
    assert.equal(all.truncated, false);
    // Both names taken, in other cases: the next one is used.
    const both = queryReadOnly(db, "SELECT c1 FROM sized UNION ALL SELECT c1 FROM sized1", { maxRows: 4 });
    assert.deepEqual(both.rows.map((row) => row.c1), ["S1", "S2", "S3", "x"]);
    assert.equal(both.truncated, false);
    assert.match(
      planReadOnlyQuery(db, "SELECT c1 FROM sized UNION ALL SELECT c1 FROM sized1").sizing ?? "",
      /^WITH sized2\(/,
    );
  } finally {
    db.close();
  }
});

Deno.test("planReadOnlyQuery() sizes columns by position: names that differ only in case are each measured", () => {
  // SQLite matches a quoted name ignoring ASCII case: sized by name, "A" was "a" again, and the big value unseen.
  assertSizedPast("SELECT 1 AS a, printf('%.*c', 5000, 'x') AS A", 5001);
});

Deno.test("the sizing statement counts a text value's bytes past a NUL, which length() stops at", () => {
  assertSizedPast("SELECT char(0) || printf('%.*c', 5000, 'x') AS c FROM t", 5001);
});
