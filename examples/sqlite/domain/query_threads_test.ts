// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { AUTH } from "./_sqlite.ts";
import { connectionOptions, MAX_SQLITE_HEAP_BYTES, MAX_VALUE_BYTES, openDatabase } from "./connection.ts";
import { makeFixture, TMP } from "./_fixture.ts";
import { type PlannedQuery, planQuery, type QueryOptions } from "./query.ts";
import { QueryThreads, type QueryThreadsOptions } from "./query_threads.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"] };
const OPTIONS: QueryOptions = { maxRows: 100, maxSqlLength: 10_000, allowRecursive: false };
const AUTH_CODES = { ok: AUTH.OK, deny: AUTH.DENY };
/** Seconds of SQLite work in one step: 27 million combinations under an aggregate. */
const SLOW = "SELECT count(*) AS n FROM wide a, wide b, wide c";

function withThreads(
  options: QueryThreadsOptions,
  fn: (
    threads: QueryThreads,
    run: (sql: string, timeoutMs?: number, signal?: AbortSignal) => Promise<unknown>,
    plan: (sql: string) => PlannedQuery,
  ) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const fixture = makeFixture();
    const setup = new DatabaseSync(fixture.db);
    setup.exec(
      "CREATE TABLE wide (n); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300) " +
        "INSERT INTO wide SELECT n FROM c",
    );
    setup.close();
    const db = openDatabase(fixture.db, false);
    const threads = new QueryThreads(
      {
        path: fixture.db,
        options: { ...connectionOptions(false) },
        maxValueBytes: MAX_VALUE_BYTES,
        maxHeapBytes: MAX_SQLITE_HEAP_BYTES,
      },
      options,
    );
    const run = (sql: string, timeoutMs = 10_000, signal?: AbortSignal) => {
      const { plan, approved } = planQuery(db, sql, OPTIONS);
      return threads.run(plan, { approved, auth: AUTH_CODES, timeoutMs, signal });
    };
    try {
      await fn(threads, run, (sql) => planQuery(db, sql, OPTIONS));
      // Late threads end when SQLite returns; wait, so that they do not slow the tests after this one.
      for (let waited = 0; threads.late > 0 && waited < 60_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(threads.late, 0);
    } finally {
      threads.close();
      db.close();
      fixture.remove();
    }
  };
}

Deno.test({
  name: "QueryThreads runs a plan on a thread and returns its rows, one query after another",
  permissions: perms,
  fn: withThreads({}, async (_threads, run) => {
    assert.deepEqual(await run("SELECT name FROM customers ORDER BY id"), {
      rows: [{ name: "Ada" }, { name: "Grace" }],
      truncated: false,
    });
    const found = await run("SELECT count(*) AS n FROM orders") as { rows: { n: bigint }[] };
    assert.equal(found.rows[0].n, 3n);
  }),
});

Deno.test({
  name: "QueryThreads answers at the deadline, counts the thread as late until SQLite returns, then serves again",
  permissions: perms,
  fn: withThreads({}, async (threads, run) => {
    const begun = performance.now();
    await assert.rejects(run(SLOW, 100), /^PolicyError: Cannot run query: it ran past its deadline of 100 ms/);
    assert.ok(performance.now() - begun < 5_000);
    assert.equal(threads.late, 1);
    // Another thread serves meanwhile.
    assert.deepEqual(await run("SELECT 1 AS one"), { rows: [{ one: 1n }], truncated: false });
  }),
});

Deno.test({
  name: "QueryThreads refuses new queries while maxLate threads run past their deadline, and serves once one ends",
  permissions: perms,
  fn: withThreads({ maxLate: 1 }, async (threads, run) => {
    await assert.rejects(run(SLOW, 50), /past its deadline/);
    await assert.rejects(
      run("SELECT 1 AS one"),
      /^PolicyError: Cannot run query: 1 earlier queries are still running past their deadline and none can be stopped/,
    );
    for (let waited = 0; threads.late > 0 && waited < 60_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await run("SELECT 1 AS one"), { rows: [{ one: 1n }], truncated: false });
  }),
});

Deno.test({
  name: "QueryThreads: a cancelled call stops waiting at once, and its thread counts as late",
  permissions: perms,
  fn: withThreads({}, async (threads, run) => {
    const controller = new AbortController();
    const pending = run(SLOW, 10_000, controller.signal);
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(pending, /^PolicyError: Cannot run query: the call was cancelled$/);
    assert.equal(threads.late, 1);
    await assert.rejects(run("SELECT 1", 1_000, AbortSignal.abort()), /the call was cancelled/);
  }),
});

Deno.test({
  name: "QueryThreads: the thread's authorizer allows only what the main thread approved",
  permissions: perms,
  fn: withThreads({}, async (threads, _run, planOf) => {
    const { plan, approved } = planOf("SELECT name FROM customers");
    await assert.rejects(
      threads.run(plan, { approved: [], auth: AUTH_CODES, timeoutMs: 5_000 }),
      /^PolicyError: Cannot run query: not authorized$/,
    );
    // One approval short is as good as none.
    await assert.rejects(
      threads.run(plan, { approved: approved.slice(1), auth: AUTH_CODES, timeoutMs: 5_000 }),
      /not authorized/,
    );
    assert.equal((await threads.run(plan, { approved, auth: AUTH_CODES, timeoutMs: 5_000 })).rows.length, 2);
  }),
});

Deno.test({
  name: "QueryThreads.close() ends a waiting call with a shutting-down refusal and refuses new ones",
  permissions: perms,
  fn: withThreads({}, async (threads, run) => {
    const pending = run(SLOW, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    threads.close();
    await assert.rejects(pending, /^PolicyError: Cannot run query: the server is shutting down$/);
    await assert.rejects(run("SELECT 1"), /the server is shutting down/);
  }),
});
