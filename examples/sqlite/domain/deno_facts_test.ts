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

/** Starts a Worker from a Blob (no module file to read) and resolves with its first message or error. */
function blobWorker(source: string): { worker: Worker; first: Promise<unknown> } {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  const worker = new Worker(url, { type: "module" });
  const first = new Promise((resolve) => {
    worker.onmessage = (event) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      resolve(`error: ${event.message}`);
    };
  });
  URL.revokeObjectURL(url);
  return { worker, first };
}

Deno.test({
  name: "a module Worker reads its files under --allow-read, a Worker from a Blob reads none and can use node:sqlite",
  // Read of the test's own folder only: a checkout that lies under the temp
  // folder must not grant the module file this test expects to be refused.
  permissions: { read: [dir], write: [dir], env: ["TMPDIR"] },
  async fn() {
    const module = new Worker(new URL("./_sqlite.ts", import.meta.url), { type: "module" });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refused = await new Promise<string>((resolve) => {
      module.onerror = (event) => {
        event.preventDefault();
        resolve(event.message);
      };
      // A module that loads sends nothing: fail instead of waiting for ever.
      timer = setTimeout(() => resolve("the module Worker loaded"), 10_000);
    }).finally(() => clearTimeout(timer));
    module.terminate();
    assert.match(refused, /Requires read access to ".*_sqlite\.ts"/);
    const { worker, first } = blobWorker(
      `const { DatabaseSync } = await import("node:sqlite");
       const db = new DatabaseSync(${JSON.stringify(rollback)}, { readOnly: true });
       self.postMessage(Number(db.prepare("SELECT count(*) AS n FROM t").get().n));`,
    );
    assert.equal(await first, 2);
    worker.terminate();
  },
});

Deno.test({
  name: "a Worker shares the process's permissions: revoking one inside it revokes it for the whole process",
  permissions: { env: ["TMPDIR"] },
  async fn() {
    const { worker, first } = blobWorker(
      `Deno.permissions.revokeSync({ name: "env", variable: "TMPDIR" }); self.postMessage("revoked");`,
    );
    assert.equal(await first, "revoked");
    worker.terminate();
    assert.equal((await Deno.permissions.query({ name: "env", variable: "TMPDIR" })).state, "prompt");
  },
});

Deno.test({
  name: "Worker.terminate() does not stop a statement inside SQLite: it holds its read lock until SQLite returns",
  permissions: perms,
  async fn() {
    const path = join(dir, "cross.db");
    const setup = new DatabaseSync(path);
    setup.exec(
      "CREATE TABLE t (n); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 400) " +
        "INSERT INTO t SELECT n FROM c",
    );
    setup.close();
    // One step of 64 million combinations (seconds): the aggregate returns its row only at the end.
    const { worker, first } = blobWorker(
      `const { DatabaseSync } = await import("node:sqlite");
       const db = new DatabaseSync(${JSON.stringify(path)}, { readOnly: true });
       const statement = db.prepare("SELECT count(*) FROM t a, t b, t c");
       self.postMessage("started");
       statement.get();`,
    );
    assert.equal(await first, "started");
    // The step is the worker's next statement; give a loaded machine time to get into it.
    await new Promise((resolve) => setTimeout(resolve, 250));
    worker.terminate();
    // The terminated thread is still inside SQLite, holding its shared lock: no writer can commit.
    const writer = new DatabaseSync(path, { timeout: 0 });
    assert.throws(() => writer.exec("INSERT INTO t VALUES (0)"), /database is locked/);
    // It ends when SQLite returns; wait for that so it does not slow the tests after this one.
    for (let tries = 0;; tries++) {
      try {
        writer.exec("INSERT INTO t VALUES (0)");
        break;
      } catch (err) {
        if (tries > 600) throw err;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    writer.close();
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
