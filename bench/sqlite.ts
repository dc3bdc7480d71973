// What the sqlite example's database processes cost (examples/sqlite: every
// read runs in a child process that is killed at its deadline). The server is
// started with exactly the flags it prints, on a database built from the
// sample's SQL in a temp folder, and driven over real stdio like the rest.

import { RUNTIME_FLAGS } from "../permissions/runtime_flags.ts";
import { ServerProcess } from "./driver.ts";
import { type Cell, type Env, serverCommand } from "./measure.ts";
import type { Plan } from "./plan.ts";
import { median, percentile } from "./stats.ts";

/** The figures of {@linkcode sqliteRuns}, by label. */
export type SqliteCells = Record<string, Cell>;

const SCRIPT = "examples/sqlite/main.ts";
const INIT = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "forge-bench", version: "1" } };
/** A lookup by primary key: what SQLite does for it is nothing next to the trip to the database process. */
const LOOKUP = "SELECT name, email FROM customers WHERE id = ?";
/** A recursive count that SQLite needs minutes for: stopped at the bench config's 1 s deadline. */
const ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000000000) " +
  "SELECT count(*) AS n FROM c";
const DEADLINE_MS = 1_000;

/** Builds the database and its config in a temp folder (through a child deno: this process may write no temp file). */
async function makeTree(env: Env): Promise<{ dir: string; config: string }> {
  const source = `
    import { join } from "node:path";
    import { DatabaseSync } from "node:sqlite";
    const dir = await Deno.makeTempDir({ prefix: "forge-bench-sqlite-" });
    await Deno.mkdir(join(dir, "config"), { mode: 0o700 });
    const db = new DatabaseSync(join(dir, "shop.db"));
    db.exec(await Deno.readTextFile("examples/sqlite/sample/shop.sql"));
    db.close();
    const config = join(dir, "config", "sqlite.json");
    const body = { database: "../shop.db", allow_recursive: true, query_timeout_ms: ${DEADLINE_MS} };
    await Deno.writeTextFile(config, JSON.stringify(body), { mode: 0o600 });
    console.log(JSON.stringify({ dir, config }));`;
  const out = await new Deno.Command(env.deno, { args: ["eval", source], cwd: env.repo, stderr: "inherit" }).output();
  if (!out.success) throw new Error("Cannot build the sqlite bench database");
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

async function removeTree(env: Env, dir: string): Promise<void> {
  const source = `await Deno.remove(${JSON.stringify(dir)}, { recursive: true });`;
  await new Deno.Command(env.deno, { args: ["eval", source], stdout: "null" }).output();
}

/** The flags the server prints for `config`. */
async function printedFlags(env: Env, config: string): Promise<string[]> {
  const out = await new Deno.Command(env.deno, {
    args: ["run", "--quiet", `--allow-read=${config}`, SCRIPT, "-config", config, "--print-permissions"],
    cwd: env.repo,
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error("Cannot read the sqlite server's flags");
  // Temp paths hold no space or quote, so the printed line splits on spaces.
  return new TextDecoder().decode(out.stdout).trim().split(" ");
}

async function startServer(env: Env, flags: string[], config: string): Promise<ServerProcess> {
  const server = ServerProcess.spawn({
    ...serverCommand(env, ["run", "--quiet", "--no-prompt", ...RUNTIME_FLAGS, ...flags, SCRIPT, "-config", config]),
    cwd: env.repo,
  });
  const outcome = await server.request("initialize", INIT, env.timeoutMs);
  if (outcome.kind !== "reply") throw new Error(`the sqlite server did not start: ${server.stderrTail.slice(-300)}`);
  server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return server;
}

/** One run_query call; its latency in ms, or why it failed. */
async function query(server: ServerProcess, env: Env, sql: string, params: unknown[]): Promise<number | string> {
  const outcome = await server.request("tools/call", { name: "run_query", arguments: { sql, params } }, env.timeoutMs);
  if (outcome.kind !== "reply") return outcome.reason;
  const result = outcome.message.result as { isError?: boolean; content?: { text: string }[] } | undefined;
  if (result === undefined || result.isError) return result?.content?.[0]?.text ?? JSON.stringify(outcome.message);
  return outcome.ms;
}

const answeredLookup = (ms: number | string): ms is number => typeof ms === "number";

/**
 * The sqlite figures: a lookup on a warm database process (p50 and p99 of
 * sequential calls), the first lookup of a fresh server (which starts the
 * process), and the lookup right after a query was killed at its deadline.
 */
export async function sqliteRuns(env: Env, plan: Plan): Promise<SqliteCells> {
  const sizes = plan.sqlite;
  const { dir, config } = await makeTree(env);
  const cells: SqliteCells = {};
  try {
    const flags = await printedFlags(env, config);
    const firsts: number[] = [];
    for (let i = 0; i < sizes.freshServers; i++) {
      const server = await startServer(env, flags, config);
      const ms = await query(server, env, LOOKUP, [1]);
      await server.close();
      if (!answeredLookup(ms)) {
        cells[
          "first run_query right after initialize of a fresh server (ms; waits for its database process to start)"
        ] = { failed: ms };
        break;
      }
      firsts.push(ms);
    }
    if (firsts.length === sizes.freshServers) {
      cells["first run_query right after initialize of a fresh server (ms; waits for its database process to start)"] =
        {
          value: median(firsts),
          detail: `median of ${firsts.length}`,
        };
    }
    const server = await startServer(env, flags, config);
    try {
      const samples: number[] = [];
      for (let i = 0; i < sizes.warmup + sizes.queries; i++) {
        const ms = await query(server, env, LOOKUP, [1 + (i % 3)]);
        if (!answeredLookup(ms)) throw new Error(ms);
        if (i >= sizes.warmup) samples.push(ms);
      }
      cells["run_query on a warm database process, sequential, p50 (ms)"] = { value: percentile(samples, 50) };
      cells["run_query on a warm database process, sequential, p99 (ms)"] = { value: percentile(samples, 99) };
      const afterKill: number[] = [];
      for (let i = 0; i < sizes.kills; i++) {
        const stopped = await query(server, env, ENDLESS, []);
        if (typeof stopped !== "string" || !stopped.includes("ran past its deadline")) {
          throw new Error(`the endless query was not stopped: ${stopped}`);
        }
        const ms = await query(server, env, LOOKUP, [1]);
        if (!answeredLookup(ms)) throw new Error(ms);
        afterKill.push(ms);
      }
      cells[`run_query right after a query was killed at its ${DEADLINE_MS} ms deadline (ms)`] = {
        value: median(afterKill),
        detail: `median of ${afterKill.length}`,
      };
    } catch (err) {
      cells["warm database process"] = { failed: err instanceof Error ? err.message : String(err) };
    } finally {
      await server.close();
    }
  } finally {
    await removeTree(env, dir);
  }
  return cells;
}
