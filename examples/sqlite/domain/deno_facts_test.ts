// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// What node:sqlite needs under scoped Deno permissions, observed on Deno 2.9.6
// and pinned here: if an upgrade changes one, this file says which.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { AUTH, openSqlite } from "./_sqlite.ts";
import { TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sqlite-facts-" }));
const rollback = join(dir, "rollback.db");
const wal = join(dir, "wal.db");
const other = join(dir, "other.db");
for (const [path, mode] of [[rollback, "DELETE"], [wal, "WAL"], [other, "DELETE"]]) {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = ${mode}; CREATE TABLE t (x); INSERT INTO t VALUES (1);`);
  db.close();
}

Deno.test({
  name: "Deno checks only the database path: with write on the file alone SQLite still writes its -journal",
  permissions: { read: [rollback], write: [rollback] },
  fn() {
    const db = new DatabaseSync(rollback);
    // PERSIST keeps the journal after the commit, so the cleanup test can see it was written.
    db.exec("PRAGMA journal_mode = PERSIST; INSERT INTO t VALUES (2)");
    db.close();
    // The same flags do not let this process touch the journal itself.
    assert.throws(() => Deno.writeTextFileSync(`${rollback}-journal`, "x"), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "Deno checks only the database path: a WAL database is written (-wal, -shm) with write on the file alone",
  permissions: { read: [wal], write: [wal] },
  fn() {
    const db = new DatabaseSync(wal);
    db.exec("INSERT INTO t VALUES (2)");
    assert.equal((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, "wal");
    db.close();
    assert.throws(() => Deno.readFileSync(`${wal}-wal`), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "a read-only open needs --allow-read on the file only (WAL included); read-write needs --allow-write too",
  permissions: { read: [rollback, wal] },
  fn() {
    for (const path of [rollback, wal]) {
      const db = new DatabaseSync(path, { readOnly: true });
      assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 2);
      db.close();
      assert.throws(() => new DatabaseSync(path), Deno.errors.NotCapable);
    }
  },
});

Deno.test({
  name: "under scoped permissions Deno limits ATTACH to zero databases, which also stops VACUUM INTO",
  permissions: { read: [rollback], write: [rollback] },
  fn() {
    const db = new DatabaseSync(rollback);
    assert.throws(() => db.exec(`ATTACH DATABASE '${other}' AS o`), /too many attached databases - max 0/);
    assert.throws(() => db.exec(`VACUUM INTO '${join(dir, "copy.db")}'`), /too many attached databases - max 0/);
    db.close();
  },
});

Deno.test({
  name: "node:sqlite has setAuthorizer, limits, enableDefensive, readBigInts and the authorizer codes",
  permissions: { read: [rollback] },
  fn() {
    const db = openSqlite(rollback, { readOnly: true, readBigInts: true });
    assert.equal(typeof db.setAuthorizer, "function");
    assert.equal(typeof db.enableDefensive, "function");
    assert.equal(db.limits.attach, 0);
    assert.equal((db.prepare("SELECT 1 AS one").get() as { one: bigint }).one, 1n);
    assert.equal(AUTH.DENY, 1);
    db.close();
  },
});

Deno.test({
  name: "(the journal was written, the copy was not; cleanup)",
  permissions: perms,
  fn() {
    assert.ok(Deno.statSync(`${rollback}-journal`).isFile, "SQLite wrote the -journal");
    assert.throws(() => Deno.statSync(join(dir, "copy.db")), Deno.errors.NotFound);
    const db = new DatabaseSync(wal, { readOnly: true });
    assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 2);
    db.close();
    Deno.removeSync(dir, { recursive: true });
  },
});
