// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Query bombs against the server as a real subprocess, started with exactly
// the flags it prints, over real stdio, on a real SQLite file, with the
// server's resident memory sampled from /proc while it works.
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { printedPermissions } from "@forge/toolkit/permissions";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "cat"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};
const MiB = 2 ** 20;
/** Sixty columns of 1 MiB each over a table of 200 rows: 12 GiB if it were all held. */
const PRINTF_BOMB = `SELECT ${
  Array.from({ length: 60 }, (_, i) => `printf('%.*c', 1048000, 'x') AS c${i}`).join(", ")
} FROM t`;
/** 400 rows three times over: 64 million combinations, seconds of SQLite work before the first row. */
const CROSS_JOIN = "SELECT count(*) AS n FROM t a, t b, t c";
/** A WITH RECURSIVE count that SQLite needs far longer than the deadline for, and no plan can price. */
const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) " +
  "SELECT count(*) AS n FROM c";

/** The server's resident set, in bytes, from /proc (Linux), read through `cat`: Deno grants /proc/<pid> only to -A. */
async function rss(pid: number): Promise<number> {
  const out = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stderr: "null" }).output();
  const kib = new TextDecoder().decode(out.stdout).match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  return kib === undefined ? 0 : Number(kib) * 1024;
}

/** Starts the server over a tree whose database also has table t of `rows` rows. */
async function start(rows: number, extra: Record<string, unknown> = {}) {
  const tree = await makeE2eTree({ query_timeout_ms: 1_500, ...extra });
  const db = new DatabaseSync(tree.db);
  db.exec(
    `CREATE TABLE t (n INTEGER); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c ` +
      `WHERE n < ${rows}) INSERT INTO t SELECT n FROM c`,
  );
  db.close();
  const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
  const server = await spawnRaw({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO });
  let id = 0;
  const request = async (method: string, params: Record<string, unknown>, timeoutMs = 20_000) => {
    const sent = ++id;
    await server.send(JSON.stringify({ jsonrpc: "2.0", id: sent, method, params }));
    const reply = await server.next(timeoutMs);
    assert.equal(reply.id, sent, JSON.stringify(reply).slice(0, 300));
    return reply;
  };
  await request("initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bombs", version: "1" },
  });
  await server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const query = async (sql: string) => {
    const reply = await request("tools/call", { name: "run_query", arguments: { sql } });
    return reply.result as { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
  };
  return { tree, server, query };
}

/** Samples the server's RSS back to back while `work` runs; returns the work's value and the peak seen. */
async function sampled<T>(server: RawServer, work: () => Promise<T>): Promise<{ value: T; peak: number }> {
  let peak = 0;
  let done = false;
  const sampler = (async () => {
    while (!done) peak = Math.max(peak, await rss(server.process.pid));
  })();
  try {
    return { value: await work(), peak: Math.max(peak, await rss(server.process.pid)) };
  } finally {
    done = true;
    await sampler;
  }
}

/** Ends the server the way a host does: SIGTERM, or EOF on stdin. Returns how long it took, in ms. */
async function stop(server: RawServer, how: "SIGTERM" | "EOF"): Promise<{ code: number; ms: number }> {
  const begun = performance.now();
  if (how === "SIGTERM") server.process.kill("SIGTERM");
  const status = await server.status();
  return { code: status.code, ms: performance.now() - begun };
}

Deno.test({
  name: "a 60 MiB-per-row query over 200 rows answers max_bytes (sorted: too big), under 1 GiB RSS; EOF exits 0",
  permissions: perms,
  async fn() {
    // A deadline a loaded machine does not reach: this test is about memory.
    const { tree, server, query } = await start(200, { query_timeout_ms: 9_000 });
    const before = await rss(server.process.pid);
    const { value: bomb, peak } = await sampled(server, () => query(PRINTF_BOMB));
    assert.equal(bomb.isError, undefined, bomb.content[0].text);
    assert.deepEqual(bomb.structuredContent, {
      columns: Array.from({ length: 60 }, (_, i) => `c${i}`),
      rows: [],
      row_count: 0,
      truncated: true,
      limit: "max_bytes",
    });
    assert.ok(peak < 1024 * MiB, `the server's RSS peaked at ${Math.round(peak / MiB)} MiB`);
    // Sorted, each row must be stored whole first: SQLite's 1 MiB limit on a value covers a stored row too.
    const { value: sorted, peak: sortedPeak } = await sampled(server, () => query(`${PRINTF_BOMB} ORDER BY random()`));
    assert.match(sorted.content[0].text, /^Cannot run query: (string or blob too big|it ran past its deadline)/);
    assert.ok(sortedPeak < 1024 * MiB, `the server's RSS peaked at ${Math.round(sortedPeak / MiB)} MiB when sorting`);
    // Rows that fit come back, and the budget still cuts a long tail of them.
    const some = await query("SELECT n, printf('%.*c', 100000, 'y') AS pad FROM t");
    const cut = some.structuredContent as { row_count: number; limit: string };
    assert.deepEqual([cut.row_count > 0, cut.row_count < 20, cut.limit], [true, true, "max_bytes"]);
    console.error(
      `printf bomb: RSS ${Math.round(before / MiB)} MiB before, peak ${Math.round(peak / MiB)} MiB; ` +
        `sorted: peak ${Math.round(sortedPeak / MiB)} MiB`,
    );
    assert.deepEqual((await stop(server, "EOF")).code, 0);
    await tree.remove();
  },
});

Deno.test({
  name: "count(*) over a three-way cross join answers by its deadline, the next call is served, SIGTERM exits 0",
  permissions: perms,
  async fn() {
    const { tree, server, query } = await start(400);
    const begun = performance.now();
    const { value: join3, peak } = await sampled(server, () => query(CROSS_JOIN));
    const ms = performance.now() - begun;
    assert.equal(join3.isError, true);
    assert.match(join3.content[0].text, /^Cannot run query: (it ran past its deadline of 1500 ms|.*too costly)/);
    // Answered at the deadline, not when SQLite finished (seconds later); generous for a loaded machine.
    assert.ok(ms < 9_000, `answered after ${Math.round(ms)} ms`);
    const next = await query("SELECT count(*) AS n FROM t");
    assert.deepEqual((next.structuredContent as { rows: unknown[] }).rows, [{ n: 400 }]);
    const stopped = await stop(server, "SIGTERM");
    assert.equal(stopped.code, 0, server.stderr());
    console.error(
      `cross join: answered in ${Math.round(ms)} ms, RSS peak ${Math.round(peak / MiB)} MiB; ` +
        `SIGTERM exit in ${Math.round(stopped.ms)} ms`,
    );
    await tree.remove();
  },
});

Deno.test({
  name:
    "a three-way cross join of 1,000-row tables is refused by its price before it runs, and leaves no thread behind",
  permissions: perms,
  async fn() {
    const { tree, server, query } = await start(1_000);
    // Three times: a query that ran on past its deadline would be counted, and the third refused for that.
    for (let i = 0; i < 3; i++) {
      const begun = performance.now();
      const priced = await query(CROSS_JOIN);
      assert.equal(priced.isError, true);
      assert.equal(
        priced.content[0].text,
        "Cannot run query: its plan would visit about 1,000,000,000 rows (1,000 × 1,000 × 1,000), more than " +
          "max_scan_rows (100,000,000); join on indexed columns, filter with WHERE, or join fewer tables",
      );
      if (i === 0) console.error(`cross join priced: refused in ${Math.round(performance.now() - begun)} ms`);
    }
    const joined = await query("SELECT count(*) AS n FROM t a JOIN t b ON b.rowid = a.n");
    assert.deepEqual((joined.structuredContent as { rows: unknown[] }).rows, [{ n: 1_000 }]);
    assert.equal((await stop(server, "SIGTERM")).code, 0);
    await tree.remove();
  },
});

Deno.test({
  name: "two queries still running past their deadline make the next one refused; EOF still exits 0 at once",
  permissions: perms,
  async fn() {
    const { tree, server, query } = await start(10, { allow_recursive: true, query_timeout_ms: 300 });
    for (let i = 0; i < 2; i++) {
      const late = await query(ENDLESS);
      assert.match(late.content[0].text, /^Cannot run query: it ran past its deadline of 300 ms/);
    }
    const refused = await query("SELECT 1 AS one");
    assert.equal(refused.isError, true);
    assert.match(
      refused.content[0].text,
      /^Cannot run query: 2 earlier queries are still running past their deadline and none can be stopped/,
    );
    // Tools that do not run queries are still served.
    const tables = await server.send(
      JSON.stringify({ jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "list_tables", arguments: {} } }),
    ).then(() => server.next());
    assert.equal((tables.result as { isError?: boolean }).isError, undefined);
    const stopped = await stop(server, "EOF");
    assert.equal(stopped.code, 0, server.stderr());
    assert.ok(stopped.ms < 8_000, `exit took ${Math.round(stopped.ms)} ms`);
    console.error(`late threads: EOF exit in ${Math.round(stopped.ms)} ms with two threads inside SQLite`);
    await tree.remove();
  },
});
