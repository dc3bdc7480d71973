import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { PolicyError } from "./policy_error.ts";
import { queryReadOnly } from "./read_only_query.ts";

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

Deno.test("queryReadOnly() caps the confirming read too, when a second run would return far more rows", () => {
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
    assert.ok(produced <= 3 + 6, `the confirming read produced ${produced - 3} rows`);
  } finally {
    db.close();
  }
});

Deno.test("queryReadOnly() confirms statements with a trailing ; or comment, PRAGMAs and EXPLAIN", () => {
  const db = memory();
  try {
    assert.equal(queryReadOnly(db, "SELECT n FROM t; -- the end").rows.length, 3);
    assert.equal(queryReadOnly(db, "SELECT n FROM t -- no newline after this").rows.length, 3);
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
