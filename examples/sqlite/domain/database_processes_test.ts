// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { alive, ended, oneEnded, PROC_PROGRAMS } from "../proc.ts";
import type { DatabaseJob, QueryLimits } from "./database_job.ts";
import { databaseProcessCommand, DatabaseProcesses } from "./database_processes.ts";
import { makeFixture, moduleFixture, TMP } from "./_fixture.ts";

const perms: Deno.PermissionOptions = {
  read: [TMP],
  write: [TMP],
  env: ["TMPDIR"],
  run: [Deno.execPath(), ...PROC_PROGRAMS],
};
const LIMITS: QueryLimits = { maxRows: 10, maxSqlLength: 1_000, allowRecursive: true, maxScanRows: 1e8 };
/** A recursive count SQLite needs minutes for. */
const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000000) " +
  "SELECT count(*) AS n FROM c";
/** 250,000 rows of ~110 bytes, sorted whole before the first row: tens of MiB, more than 16, far less than 256. */
const SORT = "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 500) " +
  "SELECT a.n AS x, b.n AS y, printf('%.100c', 'p') AS pad FROM c a, c b ORDER BY random()";
const query = (sql: string): DatabaseJob => ({ kind: "query", sql, params: [], limits: LIMITS });

Deno.test({
  name: "DatabaseProcesses runs jobs in warm processes, one job each, keeps a spare ready, and warms up on request",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db);
    assert.deepEqual(pool.pids, [], "nothing starts by itself");
    pool.warm();
    const [warmed] = pool.pids;
    assert.equal(typeof warmed, "number", "warm() starts one");
    const first = await pool.run(query("SELECT name FROM customers ORDER BY id"), { timeoutMs: 30_000 });
    assert.deepEqual(first, {
      columns: ["name"],
      rows: [{ name: "Ada" }, { name: "Grace" }],
      row_count: 2,
      truncated: false,
    });
    const pids = pool.pids;
    assert.equal(pids.length, 2, "the one that served and a spare");
    assert.equal(pids[0], warmed, "the warmed one served");
    const both = await Promise.all([
      pool.run({ kind: "list" }, { timeoutMs: 30_000 }),
      pool.run({ kind: "describe", table: "orders" }, { timeoutMs: 30_000 }),
    ]);
    assert.equal((both[1] as { name: string }).name, "orders");
    assert.deepEqual(pool.pids.slice(0, 2), pids, "served by the warm ones");
    await pool.close();
    assert.deepEqual(pool.pids, []);
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses stops a job past its deadline with its process, and one whose reply passes the line cap, " +
    "and serves the next job at once",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db, { maxReplyBytes: 2_000 });
    await pool.run({ kind: "list" }, { timeoutMs: 30_000 });
    const warm = pool.pids;
    await assert.rejects(pool.run(query(ENDLESS), { timeoutMs: 200 }), {
      name: "PolicyError",
      message: "Cannot run query: it ran past its deadline of 200 ms (query_timeout_ms) and was stopped; narrow it " +
        "(a WHERE on an indexed column, fewer joined tables, a LIMIT)",
    });
    await oneEnded(warm);
    const next = await pool.run(query("SELECT count(*) AS n FROM orders"), { timeoutMs: 30_000 });
    assert.deepEqual((next as { rows: unknown[] }).rows, [{ n: 3 }]);
    const before = pool.pids;
    await assert.rejects(pool.run(query("SELECT printf('%.3000c', 'x') AS pad"), { timeoutMs: 30_000 }), {
      name: "PolicyError",
      message: "Cannot run query: its answer passed the 2,000 bytes a database process may send; ask for less " +
        "(fewer or shorter columns, short aliases for long names, fewer rows)",
    });
    await oneEnded(before);
    const after = await pool.run(query("SELECT count(*) AS n FROM orders"), { timeoutMs: 30_000 });
    assert.deepEqual((after as { rows: unknown[] }).rows, [{ n: 3 }]);
    await pool.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses keeps a job within its call's time: a slow start is named, and a job left less than " +
    "query_timeout_ms is stopped at the call's end, each with its process",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    let release = () => {};
    const startGate = new Promise<void>((resolve) => release = resolve);
    // Every start is held back until the test releases it; the call has 300 ms, its query_timeout_ms 9 s.
    const pool = new DatabaseProcesses(fixture.db, { startGate, maxIdle: 1 });
    const slow = pool.run(query("SELECT 1"), { timeoutMs: 9_000, endsAt: performance.now() + 300 });
    const starting = pool.pids;
    assert.equal(starting.length, 1);
    await assert.rejects(
      slow,
      new RegExp(
        "^PolicyError: Cannot run query: its database process took \\d+ ms to start, leaving no time before the " +
          "call's deadline; try again shortly \\(a process is kept ready once one has started\\)$",
      ),
    );
    await ended(starting);
    release();
    await pool.run({ kind: "list" }, { timeoutMs: 30_000 });
    const ready = pool.pids;
    await assert.rejects(
      pool.run(query(ENDLESS), { timeoutMs: 9_000, endsAt: performance.now() + 300 }),
      new RegExp(
        "^PolicyError: Cannot run query: it ran past the \\d+ ms its call had left after \\d+ ms waiting for its " +
          "database process to start \\(query_timeout_ms is 9000\\) and was stopped; narrow it ",
      ),
    );
    await oneEnded(ready);
    await pool.close();
    assert.deepEqual(pool.pids, [], "no database process is left");
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses: a cancelled job stops its process; refusals from SQLite keep the process",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db);
    await assert.rejects(pool.run(query("SELECT * FROM nope"), { timeoutMs: 30_000 }), /no such table: nope/);
    const warm = pool.pids;
    assert.ok((await Promise.all(warm.map(alive))).every(Boolean), "a refusal ends no process");
    const controller = new AbortController();
    const pending = pool.run(query(ENDLESS), { timeoutMs: 30_000, signal: controller.signal });
    controller.abort();
    await assert.rejects(pending, /^PolicyError: Cannot run query: the call was cancelled$/);
    await oneEnded(warm);
    await assert.rejects(
      pool.run(query("SELECT 1"), { timeoutMs: 1_000, signal: AbortSignal.abort() }),
      /the call was cancelled/,
    );
    await pool.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses runs at most maxQueries queries at once, list and describe still answer, close() ends all",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db, { maxQueries: 1 });
    const running = pool.run(query(ENDLESS), { timeoutMs: 60_000 });
    await assert.rejects(
      pool.run(query("SELECT 1"), { timeoutMs: 30_000 }),
      /^PolicyError: Cannot run query: 1 query is already running; try again shortly$/,
    );
    const listed = await pool.run({ kind: "list" }, { timeoutMs: 30_000 });
    assert.equal((listed as { tables: unknown[] }).tables.length, 6);
    const shutDown = assert.rejects(running, /^PolicyError: Cannot run query: the server is shutting down$/);
    await pool.close();
    await shutDown;
    await assert.rejects(pool.run({ kind: "list" }, { timeoutMs: 1_000 }), /the server is shutting down/);
    assert.deepEqual(pool.pids, []);
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses starts processes under the heap cap a job asks for: a sort refused at 16 MiB, served at 256",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db, { maxMemoryMb: 16 });
    await assert.rejects(pool.run(query(SORT), { timeoutMs: 30_000 }), {
      name: "PolicyError",
      message: "Cannot run query: out of memory",
    });
    const capped = pool.pids;
    const small = await pool.run(query("SELECT count(*) AS n FROM orders"), { timeoutMs: 30_000 });
    assert.deepEqual((small as { rows: unknown[] }).rows, [{ n: 3 }], "the process that refused serves on");
    assert.deepEqual(pool.pids, capped, "no process ended");
    // SQLite can only lower a process's cap: served, the sort ran in a process started under the larger one.
    const served = await pool.run(query(SORT), { timeoutMs: 30_000, maxMemoryMb: 256 });
    assert.deepEqual([(served as { row_count: number }).row_count, (served as { limit: string }).limit], [
      10,
      "max_rows",
    ]);
    await ended(capped);
    // And back: the processes under 256 MiB are not used for a job that asks for 16.
    await assert.rejects(
      pool.run(query(SORT), { timeoutMs: 30_000, maxMemoryMb: 16 }),
      /^PolicyError: .*out of memory$/,
    );
    await pool.close();
    fixture.remove();
  },
});

Deno.test({
  name: "DatabaseProcesses: a job running when the heap cap changes keeps its cap, and its process ends after it",
  permissions: perms,
  async fn() {
    const fixture = makeFixture();
    const pool = new DatabaseProcesses(fixture.db, { maxMemoryMb: 256 });
    await pool.run({ kind: "list" }, { timeoutMs: 30_000 });
    const before = pool.pids;
    assert.equal(before.length, 2, "the one that served and a spare");
    // Sent together: the first job has taken its process before the second one changes the cap.
    const old = pool.run(query(SORT), { timeoutMs: 30_000 });
    const changed = pool.run(query(SORT), { timeoutMs: 30_000, maxMemoryMb: 16 });
    await assert.rejects(changed, /^PolicyError: Cannot run query: out of memory$/);
    assert.equal((await old as { row_count: number }).row_count, 10, "served under the cap it started with");
    await ended(before);
    await assert.rejects(pool.run(query(SORT), { timeoutMs: 30_000 }), /out of memory/, "no job asked otherwise since");
    await pool.close();
    fixture.remove();
  },
});

// Built at load time so that the tests below can name its exact paths.
const scoped = moduleFixture();

Deno.test({
  name: "DatabaseProcesses gives a process no access this one lacks, and says to restart when it cannot start one",
  permissions: { read: [scoped.canaryDb], run: [Deno.execPath()] },
  async fn() {
    await assert.rejects(new DatabaseProcesses(scoped.db).run({ kind: "list" }, { timeoutMs: 1_000 }), (err) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(
        err.message,
        "Cannot open the database: reading it is outside what this process was started with; restart the server " +
          "with the flags from --print-permissions",
      );
      return true;
    });
  },
});

Deno.test({
  name: "DatabaseProcesses without --allow-run for deno refuses with the restart hint",
  permissions: { read: [scoped.db] },
  async fn() {
    await assert.rejects(
      new DatabaseProcesses(scoped.db).run({ kind: "list" }, { timeoutMs: 1_000 }),
      /^PolicyError: Cannot start the database process: this process may not run deno \(--allow-run\); restart/,
    );
  },
});

Deno.test("databaseProcessCommand() under deno grants the database alone (and its journal to read, to a writer) and names the file at start; compiled, the binary drops the server's other files", () => {
  const common = {
    database: "/srv/shop.db",
    writable: true,
    maxMemoryMb: 64,
    identity: { dev: 2049, ino: 1837 },
    serverFiles: { read: ["/etc/s.json", "/srv/shop.db", "/srv/shop.db-journal"], write: ["/a.jsonl"] },
  };
  const underDeno = databaseProcessCommand({ ...common, standalone: false, execPath: "/usr/bin/deno" });
  assert.equal(underDeno.program, "/usr/bin/deno");
  assert.deepEqual(underDeno.args.filter((arg) => arg.startsWith("--allow-")), [
    "--allow-read=/srv/shop.db,/srv/shop.db-journal",
    "--allow-write=/srv/shop.db",
  ]);
  const reader = databaseProcessCommand({ ...common, writable: false, standalone: false, execPath: "/usr/bin/deno" });
  assert.deepEqual(reader.args.filter((arg) => arg.startsWith("--allow-")), ["--allow-read=/srv/shop.db"]);
  assert.match(underDeno.args.at(-6)!, /\/examples\/sqlite\/database_process\.ts$/);
  assert.deepEqual(underDeno.args.slice(-5), [
    "--database-process",
    "/srv/shop.db",
    "--max-memory-mb=64",
    "--database-id=2049:1837",
    "--write",
  ]);
  const compiled = databaseProcessCommand({ ...common, standalone: true, execPath: "/opt/sqlite" });
  assert.deepEqual([compiled.program, ...compiled.args], [
    "/opt/sqlite",
    "--database-process",
    "/srv/shop.db",
    "--max-memory-mb=64",
    "--database-id=2049:1837",
    "--write",
    "--drop-read=/etc/s.json",
    "--drop-write=/a.jsonl",
  ]);
});
