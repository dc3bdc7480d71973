// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
// What node:sqlite needs under scoped Deno permissions, observed on Deno 2.9.6
// and pinned here: if an upgrade changes one, this file says which.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { AUTH, openSqlite } from "./sqlite.ts";
import { openDatabase } from "./connection.ts";

// Files made at load time, so that each test can name exactly the one it may use (each test changes only its own),
// and removed when the module ends, whichever tests ran.
const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sqlite-facts-" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const journaled = join(dir, "journaled.db");
const wal = join(dir, "wal.db");
const rollback = join(dir, "rollback.db");
const readWal = join(dir, "read-wal.db");
const other = join(dir, "other.db");
for (
  const [path, mode] of [[journaled, "DELETE"], [wal, "WAL"], [rollback, "DELETE"], [readWal, "WAL"], [other, "DELETE"]]
) {
  const db = new DatabaseSync(path);
  db.exec(`PRAGMA journal_mode = ${mode}; CREATE TABLE t (x); INSERT INTO t VALUES (1);`);
  db.close();
}
const walRo = join(dir, "wal-ro.db");
Deno.copyFileSync(readWal, walRo);

Deno.test({
  name: "Deno checks only the database path: with write on the file alone SQLite still writes its -journal",
  permissions: { read: [dir], write: [dir], run: [Deno.execPath()] },
  async fn() {
    // A process with write access to the database file alone; PERSIST keeps the journal after the commit.
    const source = `import { DatabaseSync } from "node:sqlite";
      const db = new DatabaseSync(${JSON.stringify(journaled)});
      db.exec("PRAGMA journal_mode = PERSIST; INSERT INTO t VALUES (2)");
      db.close();
      try {
        Deno.writeTextFileSync(${JSON.stringify(`${journaled}-journal`)}, "x");
      } catch (err) {
        console.log(err.name);
      }`;
    const script = join(dir, "journal_child.ts");
    Deno.writeTextFileSync(script, source);
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-prompt", `--allow-read=${journaled}`, `--allow-write=${journaled}`, script],
      stdout: "piped",
    }).output();
    // The same flags do not let the process touch the journal itself.
    assert.equal(new TextDecoder().decode(child.stdout).trim(), "NotCapable");
    assert.ok(Deno.statSync(`${journaled}-journal`).size > 0, "SQLite wrote the -journal");
    const db = new DatabaseSync(journaled, { readOnly: true });
    assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 2);
    db.close();
  },
});

Deno.test({
  name: "Deno checks only the database path: a WAL database is written (-wal, -shm) with write on the file alone",
  permissions: { read: [wal], write: [wal] },
  fn() {
    const db = new DatabaseSync(wal);
    db.exec("INSERT INTO t VALUES (2)");
    assert.equal((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, "wal");
    assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 2);
    db.close();
    assert.throws(() => Deno.readFileSync(`${wal}-wal`), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "a read-only open needs --allow-read on the file only (WAL included); read-write needs --allow-write too",
  permissions: { read: [rollback, readWal] },
  fn() {
    for (const path of [rollback, readWal]) {
      const db = new DatabaseSync(path, { readOnly: true });
      assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 1);
      db.close();
      assert.throws(() => new DatabaseSync(path), Deno.errors.NotCapable);
    }
  },
});

Deno.test({
  name:
    "a read-only connection to a WAL database makes SQLite create -shm (32 KiB) and an empty -wal beside it, which Deno does not check; the file itself is not written",
  permissions: { read: [dir] },
  fn() {
    const before = Deno.readFileSync(walRo);
    assert.throws(() => Deno.statSync(`${walRo}-shm`), Deno.errors.NotFound);
    const db = new DatabaseSync(walRo, { readOnly: true });
    assert.equal((db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n, 1);
    db.close();
    assert.equal(Deno.statSync(`${walRo}-shm`).size, 32_768, "SQLite's shared-memory index");
    assert.equal(Deno.statSync(`${walRo}-wal`).size, 0);
    assert.deepEqual(Deno.readFileSync(walRo), before, "the database file is unchanged");
  },
});

Deno.test({
  name: "under scoped permissions Deno limits ATTACH to zero databases, which also stops VACUUM INTO",
  permissions: { read: [dir], write: [rollback] },
  fn() {
    const db = new DatabaseSync(rollback);
    assert.throws(() => db.exec(`ATTACH DATABASE '${other}' AS o`), /too many attached databases - max 0/);
    assert.throws(() => db.exec(`VACUUM INTO '${join(dir, "copy.db")}'`), /too many attached databases - max 0/);
    db.close();
    assert.throws(() => Deno.statSync(join(dir, "copy.db")), Deno.errors.NotFound, "no copy was written");
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
  name: "node:sqlite offers no way to stop a running statement: no interrupt and no progress handler",
  permissions: { read: [rollback] },
  fn() {
    const db = new DatabaseSync(rollback, { readOnly: true });
    const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(db));
    assert.deepEqual(methods.filter((name) => /interrupt|progress|cancel|abort/i.test(name)), []);
    db.close();
  },
});

Deno.test({
  name: "SIGKILL ends a process inside SQLite at once: the read lock it held is free as soon as it has exited",
  permissions: { read: [dir], write: [dir], run: [Deno.execPath()] },
  async fn() {
    const path = join(dir, "cross.db");
    const setup = new DatabaseSync(path);
    setup.exec(
      "CREATE TABLE t (n); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000) " +
        "INSERT INTO t SELECT n FROM c",
    );
    setup.close();
    // The first row comes at once and opens the read transaction; the second is a billion combinations away.
    const source = `import { DatabaseSync } from "node:sqlite";
      const rows = new DatabaseSync(${JSON.stringify(path)}, { readOnly: true })
        .prepare("SELECT 1 AS n UNION ALL SELECT count(*) FROM t a, t b, t c").iterate();
      rows.next();
      console.log("started");
      rows.next();`;
    const child = new Deno.Command(Deno.execPath(), { args: ["eval", source], stdout: "piped" }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    assert.equal((await reader.read()).value?.trim(), "started");
    const writer = new DatabaseSync(path, { timeout: 0 });
    assert.throws(() => writer.exec("INSERT INTO t VALUES (0)"), /database is locked/);
    child.kill("SIGKILL");
    assert.equal((await child.status).signal, "SIGKILL");
    await reader.cancel();
    writer.exec("INSERT INTO t VALUES (0)");
    writer.close();
  },
});

Deno.test({
  name: "--allow-run for deno reaches what the user can: a child it starts is not bound by the parent's flags",
  permissions: { run: [Deno.execPath()] },
  async fn() {
    assert.throws(() => Deno.readFileSync(rollback), Deno.errors.NotCapable);
    const child = await new Deno.Command(Deno.execPath(), {
      args: ["eval", `console.log(Deno.readFileSync(${JSON.stringify(rollback)}).length > 0)`],
      stdout: "piped",
    }).output();
    assert.equal(new TextDecoder().decode(child.stdout).trim(), "true");
  },
});

Deno.test({
  name: "node:sqlite cuts a TEXT value at its first NUL; a BLOB comes back whole (examples/sqlite/README.md)",
  permissions: "none",
  fn() {
    const db = new DatabaseSync(":memory:");
    try {
      const row = db.prepare("SELECT 'a' || char(0) || 'b' AS t, CAST('a' || char(0) || 'b' AS BLOB) AS b").get()!;
      assert.equal(row.t, "a");
      assert.deepEqual(row.b, new Uint8Array([0x61, 0, 0x62]));
    } finally {
      db.close();
    }
  },
});

Deno.test({
  name: "a read-only connection serves the pages of a -wal planted beside a WAL database, the file unchanged",
  permissions: { read: [dir], write: [dir] },
  fn() {
    const planted = join(dir, "planted.db");
    const writer = new DatabaseSync(planted);
    writer.exec("PRAGMA journal_mode = WAL; CREATE TABLE secret (s TEXT); INSERT INTO secret VALUES ('kept')");
    writer.exec("PRAGMA wal_checkpoint(TRUNCATE); PRAGMA wal_autocheckpoint = 0");
    const file = Deno.readFileSync(planted);
    // A commit that stays in the -wal, copied aside before the close checkpoints it into the file.
    writer.exec("UPDATE secret SET s = 'planted'");
    const log = Deno.readFileSync(`${planted}-wal`);
    writer.close();
    Deno.writeFileSync(planted, file);
    Deno.writeFileSync(`${planted}-wal`, log);
    const reader = openDatabase(planted, false);
    assert.equal(reader.prepare("SELECT s FROM secret").get()?.s, "planted");
    reader.close();
    assert.deepEqual(Deno.readFileSync(planted), file);
  },
});
