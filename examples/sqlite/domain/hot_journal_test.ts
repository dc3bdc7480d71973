// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// test-process: its writer spills its changes before the commit only when no other thread's SQLite connections share the process's page cache
// A database left with a hot journal (a write interrupted by a crash or a
// kill): made for real, by copying the file and its journal while a write
// holds them, the state a killed writer leaves behind.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { PolicyError } from "@forge/toolkit/validate";
import { TMP } from "./_fixture.ts";
import { describeTable, listTables } from "./catalog.ts";
import { openDatabase } from "./connection.ts";
import { runQuery } from "./query.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const HOT =
  ": the database has a hot journal (a write to it was interrupted), which only a connection that may write can roll back";

/** A database of 2,000 rows whose every n was being negated when its writer died: `n` sums to 2,001,000 after rollback. */
function hotDatabase(dir: string): string {
  const live = join(dir, "live.db");
  const writer = new DatabaseSync(live);
  // A one-page cache spills the changed pages into the file before the commit, as a big write does.
  writer.exec("PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; CREATE TABLE t (n INTEGER, pad TEXT)");
  writer.exec(
    "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) " +
      "INSERT INTO t SELECT x, printf('%.200c', 'p') FROM c",
  );
  writer.exec("BEGIN; UPDATE t SET n = -n");
  const hot = join(dir, "hot.db");
  Deno.copyFileSync(live, hot);
  Deno.copyFileSync(`${live}-journal`, `${hot}-journal`);
  writer.exec("ROLLBACK");
  // A journal is hot only once its header is written, when the writer spills: say so if this one did not.
  const magic = Array.from(Deno.readFileSync(`${hot}-journal`).subarray(0, 8));
  assert.deepEqual(magic, [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7], "the writer spilled: its journal is hot");
  writer.close();
  return hot;
}

Deno.test({
  name:
    "a read-only connection that meets a hot journal refuses every call in words that say so (SQLite's own: 'attempt to write a readonly database'), changes nothing; a connection that may write rolls it back",
  permissions: perms,
  fn() {
    const dir = Deno.makeTempDirSync({ dir: TMP });
    try {
      const hot = hotDatabase(dir);
      const before = Deno.readFileSync(hot);
      const reader = openDatabase(hot, false);
      // Each tool says what it was doing: a schema read is not a query.
      const refused = (work: () => unknown, action = "run query") =>
        assert.throws(work, (err: Error) => {
          assert.ok(err instanceof PolicyError);
          assert.ok(err.message.startsWith(`Cannot ${action}${HOT}`), err.message);
          return true;
        });
      refused(() =>
        runQuery(reader, "SELECT sum(n) AS s FROM t", { maxRows: 10, maxSqlLength: 1_000, allowRecursive: false })
      );
      // A connection that read the schema before the journal appeared (a database process serves many calls)
      // compiles from its cache: a query priced as the server prices it meets the journal in the pricing's counts.
      const later = join(dir, "later.db");
      Deno.copyFileSync(hot, later);
      const warm = openDatabase(later, false);
      const priced = { maxRows: 10, maxSqlLength: 1_000, allowRecursive: false, maxScanRows: 100_000_000 };
      runQuery(warm, "SELECT count(*) AS c FROM t", priced);
      Deno.copyFileSync(`${hot}-journal`, `${later}-journal`);
      refused(() => runQuery(warm, "SELECT sum(n) AS s FROM t", priced));
      warm.close();
      refused(() => listTables(reader), "read the schema");
      refused(() => describeTable(reader, "t"), "read the schema");
      reader.close();
      assert.deepEqual(Deno.readFileSync(hot), before, "the read-only connection wrote nothing");
      assert.ok(Deno.statSync(`${hot}-journal`).size > 0, "the journal is still there");
      // Opened once with write access, SQLite rolls the interrupted write back; then it reads as before the write.
      const writer = openDatabase(hot, true);
      const { rows } = runQuery(writer, "SELECT sum(n) AS s FROM t", {
        maxRows: 10,
        maxSqlLength: 1_000,
        allowRecursive: false,
      });
      assert.deepEqual(rows, [{ s: 2_001_000 }]);
      writer.close();
      const after = openDatabase(hot, false);
      assert.equal(listTables(after).tables.length, 1);
      after.close();
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
