// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError, queryReadOnly } from "@forge/toolkit/validate";
import { openDatabase } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { readRows } from "./read_rows.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const plain = (result: { rows: object[]; truncated: boolean }) => ({
  rows: result.rows.map((row) => ({ ...row })),
  truncated: result.truncated,
});
const FAILS_MID_QUERY = "SELECT 1 AS a UNION ALL SELECT json_extract('{broken', '$')";

Deno.test({
  name: "queryReadOnly() alone reports a query that fails mid-way as complete (node:sqlite iterate() in Deno 2.9.6)",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    // If this starts throwing, Deno fixed iterate() and readRows() can drop its second run.
    assert.deepEqual(plain(queryReadOnly(db, FAILS_MID_QUERY)), { rows: [{ a: 1n }], truncated: false });
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "readRows() turns a failure mid-query into a refusal instead of a short result",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    assert.throws(() => readRows(db, FAILS_MID_QUERY, {}), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.message, "Cannot run query: malformed JSON");
      return true;
    });
    assert.throws(() => readRows(db, "SELECT zeroblob(2000000)", {}), /Cannot run query: string or blob too big/);
    db.close();
    fixture.remove();
  },
});

Deno.test({
  name: "readRows() keeps a result cut at maxRows as it is, and confirms a complete one",
  permissions: perms,
  fn() {
    const fixture = makeFixture();
    const db = openDatabase(fixture.db, false);
    const cut = readRows(db, "SELECT id FROM orders ORDER BY id", { maxRows: 2 });
    assert.deepEqual(plain(cut), { rows: [{ id: 1n }, { id: 2n }], truncated: true });
    const whole = readRows(db, "SELECT id FROM orders WHERE id > :min ORDER BY id", { params: { min: 1 }, maxRows: 5 });
    assert.deepEqual(plain(whole), { rows: [{ id: 2n }, { id: 3n }], truncated: false });
    db.close();
    fixture.remove();
  },
});
