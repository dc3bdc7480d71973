// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { leaveHotJournal, makeFixture, moduleFixture, TMP } from "./_fixture.ts";
import { Manager } from "./manager.ts";
import { openSqlite } from "./sqlite.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

/** A Manager over a config the test can change between calls. */
function setup(initial: Config) {
  let config = initial;
  const mgr = new Manager(() => Promise.resolve(config), { initial, pollMs: 5 });
  return { mgr, set: (next: Config) => (config = next) };
}

Deno.test({
  name: "Manager reads the current config on every call: max_rows applies at the next call",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr, set } = setup(fixture.config());
    assert.equal((await mgr.query("SELECT id FROM orders", [])).row_count, 3);
    set(fixture.config({ max_rows: 1 }));
    const cut = await mgr.query("SELECT id FROM orders", []);
    assert.deepEqual([cut.row_count, cut.truncated], [1, true]);
    assert.deepEqual((await mgr.listTables()).tables.length, 6);
    assert.equal((await mgr.describeTable("log")).columns.length, 1);
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name: "Manager refuses without a database, and refuses a database other than the one it started with",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const none = new Manager(() => Promise.resolve(fixture.config({ database: undefined })), {
      initial: fixture.config({ database: undefined }),
    });
    await assert.rejects(() => none.listTables(), /Cannot use the database: no database is configured/);
    const { mgr, set } = setup(fixture.config());
    set(fixture.config({ database: fixture.canaryDb }));
    for (const call of [() => mgr.listTables(), () => mgr.query("SELECT * FROM secrets", [])]) {
      await assert.rejects(call, (err: Error) => {
        assert.ok(err instanceof PolicyError);
        assert.match(err.message, /names a different database file than this process was started for; restart/);
        assert.ok(!err.message.includes(fixture.canary) && !err.message.includes(fixture.canaryDb));
        return true;
      });
    }
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name: "Manager.writePatterns() stops its job when the call's signal fires, before or while it runs",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr } = setup(fixture.config({ writable: true }));
    const sql = "DELETE FROM customers WHERE id = ?";
    const before = new AbortController();
    before.abort(new DOMException("cancelled before", "AbortError"));
    await assert.rejects(() => mgr.writePatterns(sql, before.signal), /cancelled before/);
    // Aborted once its job is handed to a database process (which listens to the signal from then on).
    const controller = new AbortController();
    const listening = Promise.withResolvers<void>();
    const listen = controller.signal.addEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((...args: Parameters<typeof listen>) => {
      listen(...args);
      if (args[0] === "abort") listening.resolve();
    }) as typeof listen;
    const pending = mgr.writePatterns(sql, controller.signal);
    await listening.promise;
    controller.abort();
    await assert.rejects(pending, /^PolicyError: Cannot execute: the call was cancelled$/);
    assert.deepEqual(await mgr.writePatterns(sql), ["sql:delete:customers", "sql:delete:orders"], "served on");
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name: "Manager.execute() runs only while the config says writable, and the probe's patterns need it too",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr, set } = setup(fixture.config({ writable: true }));
    const sql = "DELETE FROM customers WHERE id = ?";
    assert.deepEqual(await mgr.writePatterns(sql), ["sql:delete:customers", "sql:delete:orders"]);
    assert.deepEqual(await mgr.execute(sql, [2]), { changes: 1, last_insert_rowid: null });
    set(fixture.config({ writable: false }));
    await assert.rejects(() => mgr.execute(sql, [1]), /Cannot execute: writing is turned off in the config/);
    await assert.rejects(() => mgr.writePatterns(sql), /writing is turned off/);
    assert.equal((await mgr.query("SELECT count(*) AS n FROM customers", [])).rows[0].n, 1);
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name:
    "Manager works a write's patterns out from the schema as it is now, and a write the schema changed since its patterns were approved is refused, changing nothing",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr } = setup(fixture.config({ writable: true }));
    const sql = "DELETE FROM customers WHERE id = ?";
    const before = await mgr.writePatterns(sql);
    assert.deepEqual(before, ["sql:delete:customers", "sql:delete:orders"]);
    // Another program adds a table whose rows a delete of a customer cascades to, and a trigger.
    const other = openSqlite(fixture.db, {});
    other.exec(
      "CREATE TABLE kids (id INTEGER PRIMARY KEY, cid INTEGER REFERENCES customers(id) ON DELETE CASCADE); " +
        "INSERT INTO kids VALUES (1, 1); CREATE TRIGGER wipe AFTER DELETE ON customers BEGIN DELETE FROM log; END;",
    );
    other.close();
    const now = ["sql:delete:customers", "sql:delete:kids", "sql:delete:log", "sql:delete:orders"];
    assert.deepEqual(await mgr.writePatterns(sql), now, "the long-lived process sees the new schema");
    await assert.rejects(() => mgr.execute(sql, [1], undefined, before), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.code, "no-permission");
      assert.equal(
        err.message,
        "Cannot execute: the statement would now also act as sql:delete:kids, sql:delete:log, which this call's " +
          "patterns (sql:delete:customers, sql:delete:orders) do not name: the database's schema changed since they " +
          "were worked out; nothing was changed, ask again",
      );
      return true;
    });
    const count = async (table: string) => (await mgr.query(`SELECT count(*) AS n FROM ${table}`, [])).rows[0].n;
    assert.deepEqual([await count("customers"), await count("kids"), await count("log")], [2, 1, 2]);
    assert.deepEqual(await mgr.execute(sql, [1], undefined, now), { changes: 1, last_insert_rowid: null });
    assert.deepEqual([await count("customers"), await count("kids"), await count("log")], [1, 0, 0]);
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name:
    "Manager on a writable config has the writer roll back a hot journal a killed write left (as at a restart): the probe's patterns, query, list and execute are served; read-only, every call stays refused",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    await leaveHotJournal(fixture.db);
    const hot = /: the database has a hot journal \(a write to it was interrupted\)/;
    const readOnly = setup(fixture.config()).mgr;
    await assert.rejects(() => readOnly.query("SELECT sum(n) AS s FROM spill", []), hot);
    await assert.rejects(
      () => readOnly.listTables(),
      /^HotJournalError: Cannot read the schema: the database has a hot/,
    );
    await readOnly.close();
    assert.ok(Deno.statSync(`${fixture.db}-journal`).size > 0, "a read-only server leaves the journal");
    const { mgr } = setup(fixture.config({ writable: true }));
    // execute's patterns are worked out by a read-only process, which met the journal and refused, for good.
    assert.deepEqual(await mgr.writePatterns("DELETE FROM log"), ["sql:delete:log"]);
    assert.deepEqual((await mgr.query("SELECT sum(n) AS s FROM spill", [])).rows, [{ s: 2_001_000 }]);
    assert.equal((await mgr.listTables()).tables.length, 7);
    assert.deepEqual(await mgr.execute("DELETE FROM log", []), { changes: 2, last_insert_rowid: null });
    assert.throws(() => Deno.statSync(`${fixture.db}-journal`), Deno.errors.NotFound, "rolled back");
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name: "Manager stops before the work when the call's signal has already aborted",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr } = setup(fixture.config());
    await assert.rejects(() => mgr.query("SELECT 1", [], AbortSignal.abort()), { name: "AbortError" });
    await mgr.close();
    fixture.remove();
  },
});

Deno.test({
  name: "Manager.watch() announces a changed config without waiting for a call",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const { mgr, set } = setup(fixture.config());
    const seen: Config[] = [];
    const writable = new Promise<void>((resolve) => {
      mgr.watch((config) => {
        seen.push(config);
        if (config.writable) resolve();
      });
    });
    set(fixture.config({ writable: true }));
    // The poll timer is unref'd (it never keeps a process alive), so hold the test's event loop open.
    const keepAlive = setTimeout(() => {}, 60_000);
    await writable;
    clearTimeout(keepAlive);
    assert.equal(seen.at(-1)?.writable, true);
    await mgr.close();
    fixture.remove();
  },
});

// Started read-only: Deno holds only read access to the file. Built at load
// time so the test's permissions can name it.
const scoped = moduleFixture();

Deno.test({
  name: "layer 2: a reload that turns writing on cannot widen the flags: execute asks for a restart",
  permissions: { read: [scoped.db], run: [Deno.execPath()] },
  async fn() {
    const { mgr, set } = setup(scoped.config());
    set(scoped.config({ writable: true }));
    assert.deepEqual(await mgr.writePatterns("DELETE FROM log"), ["sql:delete:log"]);
    await assert.rejects(() => mgr.execute("DELETE FROM log", []), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.match(err.message, /outside what this process was started with \(it was started read-only\); restart/);
      return true;
    });
    assert.equal((await mgr.query("SELECT count(*) AS n FROM log", [])).rows[0].n, 2, "nothing was deleted");
    await mgr.close();
  },
});
