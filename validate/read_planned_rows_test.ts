import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { type ReadPlan, readPlannedRows } from "./read_planned_rows.ts";

/** A database with t(x) holding 1..5 and a column s of `x` copies of "a". */
function db(): DatabaseSync {
  const d = new DatabaseSync(":memory:");
  d.exec("CREATE TABLE t (x INTEGER, s TEXT, b BLOB)");
  for (let x = 1; x <= 5; x++) d.prepare("INSERT INTO t VALUES (?, ?, ?)").run(x, "a".repeat(x), null);
  return d;
}

/** A plan whose sizing statement measures each row as the reader does: 1 per column plus its length. */
function plan(sql: string, maxRows: number, maxBytes: number, params: ReadPlan["params"] = []): ReadPlan {
  const sizing = `SELECT 3 + coalesce(length(x), 0) + coalesce(length(s), 0) + coalesce(length(b), 0) AS n ` +
    `FROM (${sql}) LIMIT ${maxRows + 1}`;
  return { sql, sizing, params, maxRows, maxBytes };
}

const ALL = "SELECT x, s, b FROM t ORDER BY x";
// Rows of 1..5: sizes 3 + 1 + x = 5, 6, 7, 8, 9; running totals 5, 11, 18, 26, 35.

Deno.test("readPlannedRows() returns every row when both budgets hold, untruncated", () => {
  const read = readPlannedRows(db(), plan(ALL, 5, 35));
  assert.equal(read.rows.length, 5);
  assert.deepEqual({ ...read.rows[0] }, { x: 1, s: "a", b: null });
  assert.equal(read.truncated, false);
  assert.equal(read.limit, undefined);
});

Deno.test("readPlannedRows() cuts at maxRows and says so", () => {
  const read = readPlannedRows(db(), plan(ALL, 3, 1000));
  assert.deepEqual(read.rows.map((r) => r.x), [1, 2, 3]);
  assert.deepEqual([read.truncated, read.limit], [true, "max_rows"]);
});

Deno.test("readPlannedRows() keeps a row that ends exactly on maxBytes and cuts the one a byte over", () => {
  const exact = readPlannedRows(db(), plan(ALL, 5, 18));
  assert.deepEqual(exact.rows.map((r) => r.x), [1, 2, 3]);
  assert.deepEqual([exact.truncated, exact.limit], [true, "max_bytes"]);
  const under = readPlannedRows(db(), plan(ALL, 5, 17));
  assert.deepEqual(under.rows.map((r) => r.x), [1, 2]);
  const none = readPlannedRows(db(), plan(ALL, 5, 4));
  assert.deepEqual([none.rows, none.truncated, none.limit], [[], true, "max_bytes"]);
});

Deno.test("readPlannedRows() counts a blob in bytes and text in characters", () => {
  const d = new DatabaseSync(":memory:");
  const sql = "SELECT zeroblob(10) AS b, 'éé' AS s";
  const sizing = `SELECT 2 + length(b) + length(s) AS n FROM (${sql}) LIMIT 2`;
  assert.equal(readPlannedRows(d, { sql, sizing, params: [], maxRows: 1, maxBytes: 14 }).rows.length, 1);
  assert.equal(readPlannedRows(d, { sql, sizing, params: [], maxRows: 1, maxBytes: 13 }).rows.length, 0);
});

Deno.test("readPlannedRows() measures each row again on the real run: rows larger than sized are still cut", () => {
  // The sizing statement claims every row is 1 byte; the rows are not.
  const sql = ALL;
  const sizing = `SELECT 1 AS n FROM (${sql}) LIMIT 6`;
  const read = readPlannedRows(db(), { sql, sizing, params: [], maxRows: 5, maxBytes: 12 });
  assert.deepEqual(read.rows.map((r) => r.x), [1, 2]);
  assert.deepEqual([read.truncated, read.limit], [true, "max_bytes"]);
});

Deno.test("readPlannedRows() runs the plan's capped statement and cuts at the first row it marks, before its values", () => {
  const d = db();
  try {
    const base = plan(ALL, 10, 1000);
    // A stand-in for what SQLite returns of a row past the budget: the marker in place of every value.
    const sql =
      "SELECT iif(x = 3, 'M', x) AS x, iif(x = 3, 'M', s) AS s, iif(x = 3, 'M', b) AS b FROM t ORDER BY t.rowid";
    const read = readPlannedRows(d, { ...base, capped: { sql, marker: "M" } });
    assert.deepEqual(read.rows.map((row) => ({ ...row })), [{ x: 1, s: "a", b: null }, { x: 2, s: "aa", b: null }]);
    assert.equal(read.limit, "max_bytes");
  } finally {
    d.close();
  }
});

Deno.test("readPlannedRows() refuses a statement that returns fewer rows on its second run than on its first", () => {
  const sql = "SELECT x FROM t WHERE x > 4";
  const sizing = "SELECT 1 AS n FROM t LIMIT 6";
  assert.throws(
    () => readPlannedRows(db(), { sql, sizing, params: [], maxRows: 5, maxBytes: 100 }),
    /^Error: the query returned fewer rows on its second run than on its first$/,
  );
});

Deno.test("readPlannedRows() throws SQLite's failure mid-query instead of answering the rows before it as complete", () => {
  const sql = "SELECT CASE WHEN x = 4 THEN json('not json') ELSE x END AS v FROM t ORDER BY x";
  assert.throws(() => readPlannedRows(db(), plan2(sql)), /malformed JSON/);
  // Without a sizing statement (PRAGMA, EXPLAIN) the failure surfaces too.
  assert.throws(() => readPlannedRows(db(), { sql, params: [], maxRows: 10, maxBytes: 1000 }), /malformed JSON/);
});

function plan2(sql: string): ReadPlan {
  return { sql, sizing: `SELECT 1 + length(v) AS n FROM (${sql}) LIMIT 11`, params: [], maxRows: 10, maxBytes: 1000 };
}

Deno.test("readPlannedRows() stops with an AbortError as soon as it is cancelled", () => {
  let asked = 0;
  assert.throws(() => readPlannedRows(db(), plan(ALL, 5, 1000), () => ++asked > 2), (err: unknown) => {
    assert.ok(err instanceof DOMException);
    assert.equal(err.name, "AbortError");
    assert.equal(err.message, "Cannot read rows: the read was cancelled");
    return true;
  });
  assert.equal(asked, 3);
});

Deno.test("readPlannedRows() without a sizing statement applies both budgets to the rows as read", () => {
  const d = db();
  const rows = readPlannedRows(d, { sql: "PRAGMA table_info(t)", params: [], maxRows: 2, maxBytes: 10_000 });
  assert.deepEqual([rows.rows.map((r) => r.name), rows.limit], [["x", "s"], "max_rows"]);
  // The row of x: cid 0, name x, type INTEGER, notnull 0, dflt_value null, pk 0 is 17 bytes.
  const exact = readPlannedRows(d, { sql: "PRAGMA table_info(t)", params: [], maxRows: 10, maxBytes: 17 });
  assert.deepEqual([exact.rows.length, exact.limit], [1, "max_bytes"]);
  const bytes = readPlannedRows(d, { sql: "PRAGMA table_info(t)", params: [], maxRows: 10, maxBytes: 16 });
  assert.deepEqual([bytes.rows.length, bytes.limit], [0, "max_bytes"]);
  const whole = readPlannedRows(d, { sql: "PRAGMA table_info(t)", params: [], maxRows: 3, maxBytes: 10_000 });
  assert.deepEqual([whole.rows.length, whole.truncated], [3, false]);
});

Deno.test("readPlannedRows() without a sizing statement steps its rows: an EXPLAIN of many instructions is never read whole", () => {
  const d = db();
  // The real connection, with each run noted: a statement read whole goes through all().
  const runs: string[] = [];
  const noted = {
    prepare(sql: string) {
      const statement = d.prepare(sql);
      return {
        iterate: (...args: ReadPlan["params"]) => (runs.push("iterate"), statement.iterate(...args)),
        all: (...args: ReadPlan["params"]) => (runs.push("all"), statement.all(...args)),
      };
    },
  } as unknown as DatabaseSync;
  const sql = `EXPLAIN SELECT x FROM t WHERE x IN (${Array.from({ length: 2_000 }, (_, i) => i).join(",")})`;
  assert.ok(
    (d.prepare(sql).all() as unknown[]).length > 1_000,
    "the statement lists more than a thousand instructions",
  );
  const read = readPlannedRows(noted, { sql, params: [], maxRows: 10, maxBytes: 1_000_000 });
  assert.deepEqual([read.rows.length, read.limit], [10, "max_rows"]);
  assert.deepEqual(runs, ["iterate"], "stepped, and left at the eleventh row");
  let asked = 0;
  assert.throws(
    () => readPlannedRows(d, { sql, params: [], maxRows: 100, maxBytes: 1_000_000 }, () => ++asked > 3),
    (err: unknown) => err instanceof DOMException && err.name === "AbortError",
  );
  assert.equal(asked, 4, "asked before each row");
});

Deno.test("readPlannedRows() binds the plan's parameters to both runs, a named-parameter object included", () => {
  const d = db();
  const positional = readPlannedRows(d, plan("SELECT x, s, b FROM t WHERE x >= ? ORDER BY x", 5, 1000, [4]));
  assert.deepEqual(positional.rows.map((r) => r.x), [4, 5]);
  const named = readPlannedRows(d, plan("SELECT x, s, b FROM t WHERE x = :x", 5, 1000, [{ x: 2 } as never]));
  assert.deepEqual(named.rows.map((r) => r.x), [2]);
});

Deno.test("readPlannedRows() refers to nothing outside its body, so it runs from its own source text", () => {
  const rebuilt = new Function(`return ${String(readPlannedRows)}`)() as typeof readPlannedRows;
  assert.equal(rebuilt(db(), plan(ALL, 2, 1000)).rows.length, 2);
});
