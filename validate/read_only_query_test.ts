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
