// The measurements, one function each. Every one spawns what it needs, drives
// it through the one driver, checks each answer, and returns a Cell: a
// number, or why there is none.

import { type Message, type Outcome, type PipelineResult, ServerProcess } from "./driver.ts";
import { denoArgs, EMPTY_FILE, type ServerSpec } from "./servers.ts";
import { median, percentile } from "./stats.ts";
import type { Plan } from "./plan.ts";

/** A measured figure, or why it could not be measured. */
export type Cell =
  | { value: number; detail?: string }
  | { failed: string; expected?: boolean };

/** Where and how to spawn servers. */
export interface Env {
  deno: string;
  repo: string;
  timeoutMs: number;
  /** The CPU every server is started on (`taskset -c`); unpinned when absent. */
  serverCpu?: string;
}

/** The program and arguments that start `deno` with `args` as a server: on the servers' CPU when pinned. */
export function serverCommand(env: Env, args: string[]): { command: string; args: string[] } {
  return env.serverCpu === undefined
    ? { command: env.deno, args }
    : { command: "taskset", args: ["-c", env.serverCpu, env.deno, ...args] };
}

const INIT_PARAMS = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "forge-bench", version: "1.0.0" },
};

/** Spawns `spec` and completes the MCP handshake; throws with the reason when it cannot. */
export async function start(env: Env, spec: ServerSpec, extra: string[] = []): Promise<ServerProcess> {
  const server = ServerProcess.spawn({ ...serverCommand(env, denoArgs(spec, extra)), cwd: env.repo });
  const outcome = await server.request("initialize", INIT_PARAMS, env.timeoutMs);
  if (outcome.kind !== "reply" || !isObject(outcome.message.result)) {
    await server.close(200);
    const status = await server.exited;
    if (spec.unavailableCode !== undefined && status.code === spec.unavailableCode) throw new Unavailable(spec);
    throw new Error(`initialize failed: ${describe(outcome)} ${server.stderrTail.trim().slice(-300)}`);
  }
  server.send('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  return server;
}

/**
 * Spawns `spec` and speaks 2026-07-28 to it from the first message, as a
 * client of that era does: no `initialize`; one echo call, answered as a
 * complete 2026-07-28 result, shows it is up.
 */
export async function startModern(env: Env, spec: ServerSpec): Promise<ServerProcess> {
  const server = ServerProcess.spawn({ ...serverCommand(env, denoArgs(spec)), cwd: env.repo });
  const id = server.nextId();
  const outcome = await server.requestLine(id, modernEchoLine(id, "up"), env.timeoutMs);
  if (
    outcome.kind !== "reply" || !echoed(outcome.message, "up") ||
    (outcome.message.result as { resultType?: unknown }).resultType !== "complete"
  ) {
    await server.close(200);
    throw new Error(`a first 2026-07-28 call failed: ${describe(outcome)} ${server.stderrTail.trim().slice(-300)}`);
  }
  return server;
}

/** Thrown by `start()` when a server cannot run in this build (e.g. the toolkit has no StdioTransport yet). */
export class Unavailable extends Error {
  constructor(spec: ServerSpec) {
    super(`${spec.name} is unavailable in this build`);
  }
}

/** Milliseconds from spawn to the `initialize` reply. */
export async function coldStart(env: Env, spec: ServerSpec): Promise<Cell> {
  const started = performance.now();
  const server = ServerProcess.spawn({ ...serverCommand(env, denoArgs(spec)), cwd: env.repo });
  const outcome = await server.request("initialize", INIT_PARAMS, env.timeoutMs);
  const ms = performance.now() - started;
  await server.close();
  if (outcome.kind !== "reply" || !isObject(outcome.message.result)) return { failed: describe(outcome) };
  return { value: ms };
}

/** Milliseconds `deno run <file> --health` takes to print `ok` and exit (the empty file: just to exit). */
export async function healthRun(env: Env, spec: ServerSpec | "empty"): Promise<Cell> {
  const started = performance.now();
  const run = spec === "empty" ? { file: EMPTY_FILE, permissions: [] } : spec;
  const { command, args } = serverCommand(env, denoArgs(run, ["--health"]));
  const child = new Deno.Command(command, {
    args,
    cwd: env.repo,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const output = await child.output();
  const ms = performance.now() - started;
  const printed = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) return { failed: `exit code ${output.code}` };
  if (spec !== "empty" && printed !== "ok") return { failed: `printed ${JSON.stringify(printed.slice(0, 40))}` };
  return { value: ms };
}

/** An echo call line. */
export function echoLine(id: number | string, text: string): string {
  return `{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"method":"tools/call","params":{"name":"echo","arguments":{"text":${JSON.stringify(text)}}}}\n`;
}

/** The `_meta` envelope a 2026-07-28 client puts on every request, in place of `initialize`. */
const MODERN_META = JSON.stringify({
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "forge-bench", version: "1.0.0" },
});

/** An echo call line as a 2026-07-28 client sends it: the same call, with the era's `_meta` envelope. */
export function modernEchoLine(id: number | string, text: string): string {
  return `{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"method":"tools/call","params":{"name":"echo","arguments":{"text":${
    JSON.stringify(text)
  }},"_meta":${MODERN_META}}}\n`;
}

/** A call of the typed servers' `echo` with its four arguments; the answer is `text`, unchanged. */
export function typedLine(id: number | string, text: string): string {
  return `{"jsonrpc":"2.0","id":${
    JSON.stringify(id)
  },"method":"tools/call","params":{"name":"echo","arguments":{"text":${
    JSON.stringify(text)
  },"times":1,"mode":"plain","trim":false}}}\n`;
}

/**
 * Pipelined calls/s of the four-argument `echo` on one warm process, and the
 * server's CPU time per call while they ran (steadier than calls/s on a busy
 * machine): a warm-up of `warmup` calls, then `pipelined` measured, `window`
 * in flight.
 */
export async function typedRate(
  env: Env,
  spec: ServerSpec,
  sizes: ThroughputSizes,
): Promise<{ pipelinedPerSec: Cell; cpuUsPerCall: Cell }> {
  const server = await start(env, spec);
  try {
    const line = (id: number) => typedLine(id, "hi");
    const check = (m: Message) => echoed(m, "hi");
    const warm = await server.pipeline(sizes.warmup, sizes.window, line, check, env.timeoutMs);
    if (warm.stopped || warm.bad > 0) {
      const failed = rate(warm, sizes.warmup);
      return { pipelinedPerSec: failed, cpuUsPerCall: failed };
    }
    return await pipelinedWithCpu(server, env, sizes, line, check);
  } finally {
    await server.close();
  }
}

/** True when `message` is a tool result whose first text block is `text`. */
export function echoed(message: Message, text: string): boolean {
  const result = message.result as { content?: { text?: unknown }[]; isError?: boolean } | undefined;
  return result?.isError !== true && result?.content?.[0]?.text === text;
}

/** The sizes the throughput rows use: the plan's own fields, so the two cannot drift apart. */
export type ThroughputSizes = Pick<
  Plan,
  "warmup" | "sequential" | "pipelined" | "window" | "concurrent" | "sleepMs" | "sizedWarmup" | "sizedCalls"
>;

/**
 * On a fresh process: a warm-up of small echo calls (pipelined, then a few
 * hundred one at a time), then sequential calls. The pipelined rows are
 * {@linkcode echoPart}s measured after it, and {@linkcode concurrentSleeps}
 * last.
 */
export async function sequentialCalls(
  server: ServerProcess,
  env: Env,
  sizes: ThroughputSizes,
): Promise<{ sequentialPerSec: Cell; latenciesUs: number[] }> {
  const check = (m: Message) => echoed(m, "hi");
  const echo = (id: number) => echoLine(id, "hi");
  // Warm-up runs both paths so the JIT has optimised them before the clock starts.
  await server.pipeline(sizes.warmup, sizes.window, echo, check, env.timeoutMs);
  for (let i = 0; i < Math.min(500, sizes.warmup); i++) {
    const id = server.nextId();
    await server.requestLine(id, echo(id), env.timeoutMs);
  }

  const latenciesUs: number[] = [];
  const seqStart = performance.now();
  let sequentialPerSec: Cell | undefined;
  for (let i = 0; i < sizes.sequential; i++) {
    const id = server.nextId();
    const outcome = await server.requestLine(id, echo(id), env.timeoutMs);
    if (outcome.kind !== "reply" || !check(outcome.message)) {
      sequentialPerSec = { failed: describe(outcome) };
      break;
    }
    latenciesUs.push(outcome.ms * 1000);
  }
  sequentialPerSec ??= { value: sizes.sequential / ((performance.now() - seqStart) / 1000) };
  return { sequentialPerSec, latenciesUs };
}

/**
 * `sizes.concurrent` calls of `sleep {ms: sizes.sleepMs}` sent at once; the
 * milliseconds until the last reply. Measured after a process's pipelined
 * rows: after a call of another tool the toolkit's small calls were seen to
 * cost up to a fifth more CPU (docs/benchmarks.md, "How a floor row is judged").
 */
export async function concurrentSleeps(server: ServerProcess, env: Env, sizes: ThroughputSizes): Promise<Cell> {
  const sleepLine = (id: number) =>
    `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"sleep","arguments":{"ms":${sizes.sleepMs}}}}\n`;
  const slept = await server.pipeline(
    sizes.concurrent,
    sizes.concurrent,
    sleepLine,
    (m) => echoed(m, "slept"),
    env.timeoutMs,
  );
  return slept.stopped || slept.bad > 0
    ? { failed: slept.stopped ?? `${slept.bad} wrong answers` }
    : { value: slept.ms };
}

/**
 * On a warm process: `warmup` echo calls of `text` in `era` discarded, then
 * `calls` measured pipelined (`window` in flight), with the server's CPU time.
 * Each answer must hold the text unchanged (and be a complete result in
 * 2026-07-28). One part of a row: the throughput rounds measure a row in parts,
 * the servers judged together taking turns part by part.
 */
export async function echoPart(
  server: ServerProcess,
  env: Env,
  era: Era,
  text: string,
  counts: { warmup: number; calls: number; window: number },
): Promise<PipelinedFigures> {
  const modern = era === "2026-07-28";
  const check = (m: Message) =>
    echoed(m, text) && (!modern || (m.result as { resultType?: unknown }).resultType === "complete");
  const echo = modern ? (id: number) => modernEchoLine(id, text) : (id: number) => echoLine(id, text);
  if (counts.warmup > 0) await server.pipeline(counts.warmup, counts.window, echo, check, env.timeoutMs);
  return await pipelinedWithCpu(server, env, { pipelined: counts.calls, window: counts.window }, echo, check);
}

/** Pipelined calls/s of `sizes.pipelined` calls, and the server's CPU time per call while they ran. */
async function pipelinedWithCpu(
  server: ServerProcess,
  env: Env,
  sizes: Pick<ThroughputSizes, "pipelined" | "window">,
  line: (id: number) => string,
  check: (m: Message) => boolean,
): Promise<PipelinedFigures> {
  const cpuBefore = await server.cpuSeconds();
  const piped = await server.pipeline(sizes.pipelined, sizes.window, line, check, env.timeoutMs);
  const cpuAfter = await server.cpuSeconds();
  const pipelinedPerSec = rate(piped, sizes.pipelined);
  const cpuUsPerCall: Cell = cpuBefore === undefined || cpuAfter === undefined
    ? { failed: "CPU time unreadable" }
    : "failed" in pipelinedPerSec
    ? pipelinedPerSec
    : { value: ((cpuAfter - cpuBefore) * 1e6) / sizes.pipelined };
  return { pipelinedPerSec, cpuUsPerCall };
}

/** Pipelined calls/s and the server's CPU per call of one run. */
export interface PipelinedFigures {
  pipelinedPerSec: Cell;
  cpuUsPerCall: Cell;
}

/** The protocol eras a row can be measured in. */
export type Era = "initialize" | "2026-07-28";

/**
 * Pipelined calls/s of `calls` echo calls straight after `initialize` on a
 * fresh process: what a short session sees, before the JIT has compiled anything.
 */
export async function freshRate(env: Env, spec: ServerSpec, calls: number, window: number): Promise<Cell> {
  const server = await start(env, spec);
  try {
    const run = await server.pipeline(calls, window, (id) => echoLine(id, "hi"), (m) => echoed(m, "hi"), env.timeoutMs);
    return rate(run, calls);
  } finally {
    await server.close();
  }
}

function rate(run: PipelineResult, calls: number): Cell {
  if (run.stopped || run.bad > 0) return { failed: run.stopped ?? `${run.bad} wrong answers` };
  return { value: calls / (run.ms / 1000) };
}

/** Sequential latency percentiles (µs) of pooled samples. */
export function latencyCells(samples: number[]): { p50: Cell; p99: Cell } {
  if (samples.length === 0) return { p50: { failed: "no samples" }, p99: { failed: "no samples" } };
  return { p50: { value: percentile(samples, 50) }, p99: { value: percentile(samples, 99) } };
}

/**
 * Median round trip of an echo of `bytes` ASCII characters on a fresh process.
 * Stops at the first non-answer, which is expected past `spec.readsUpTo`.
 */
export async function roundTrip(env: Env, spec: ServerSpec, bytes: number, runs: number): Promise<Cell> {
  const server = await start(env, spec);
  try {
    const text = "x".repeat(bytes);
    await server.request("ping", {}, env.timeoutMs);
    const times: number[] = [];
    for (let i = 0; i < runs; i++) {
      const id = server.nextId();
      const line = echoLine(id, text);
      const outcome = await server.requestLine(id, line, env.timeoutMs);
      if (outcome.kind !== "reply") {
        return { failed: outcome.reason, expected: spec.readsUpTo !== undefined && line.length > spec.readsUpTo };
      }
      if (!echoed(outcome.message, text)) return { failed: `wrong answer: ${summary(outcome.message)}` };
      times.push(outcome.ms);
    }
    return { value: median(times), detail: `${runs} runs` };
  } finally {
    await server.close();
  }
}

/**
 * Sends a request of `bytes` to a server whose limit is `limit` (undefined:
 * its default) and checks the reply is a JSON-RPC error with the request's id
 * that names the limit; then checks the server still answers.
 */
export async function overLimit(env: Env, spec: ServerSpec, limit: number | undefined, bytes: number): Promise<Cell> {
  const expectedLimit = limit ?? 64 * 1024 * 1024;
  const server = await start(env, spec, limit === undefined ? [] : [`--max-bytes=${limit}`]);
  try {
    const id = `over-${bytes}`;
    const outcome = await server.requestLine(id, echoLine(id, "x".repeat(bytes)), env.timeoutMs);
    if (outcome.kind !== "reply") return { failed: outcome.reason };
    const error = outcome.message.error as { code?: unknown; message?: unknown } | undefined;
    if (outcome.message.id !== id) return { failed: `reply id ${JSON.stringify(outcome.message.id)}, not "${id}"` };
    if (typeof error?.message !== "string" || typeof error.code !== "number") {
      return { failed: `not a JSON-RPC error: ${summary(outcome.message)}` };
    }
    if (!error.message.includes(String(expectedLimit))) {
      return { failed: `error does not name the limit ${expectedLimit}: ${error.message.slice(0, 120)}` };
    }
    const after = server.nextId();
    const alive = await server.requestLine(after, echoLine(after, "still here"), env.timeoutMs);
    if (alive.kind !== "reply" || !echoed(alive.message, "still here")) {
      return { failed: `server stopped answering after the refusal: ${describe(alive)}` };
    }
    return { value: outcome.ms, detail: `code ${error.code}: ${error.message}` };
  } finally {
    await server.close();
  }
}

/** RSS and its anonymous part, in KiB, read after each of several call counts. */
export interface RssReadings {
  /** VmRSS after `points[i]` calls. */
  rss: Cell[];
  /** RssAnon after `points[i]` calls (informative). */
  anon: Cell[];
}

/** RSS (KiB) after each of `points` (ascending) pipelined calls on one fresh process. */
export async function rssAfter(
  env: Env,
  spec: ServerSpec,
  points: readonly number[],
  window: number,
): Promise<RssReadings> {
  const server = await start(env, spec);
  try {
    const check = (m: Message) => echoed(m, "hi");
    const sample = async (calls: number): Promise<{ rss: Cell; anon: Cell }> => {
      const run = await server.pipeline(calls, window, (id) => echoLine(id, "hi"), check, env.timeoutMs);
      if (run.stopped || run.bad > 0) {
        const failed: Cell = { failed: run.stopped ?? `${run.bad} wrong answers` };
        return { rss: failed, anon: failed };
      }
      // Let the server go idle (timers, GC) before reading its RSS.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const memory = await server.memoryKiB();
      if (memory === undefined) return { rss: { failed: "RSS unreadable" }, anon: { failed: "RSS unreadable" } };
      return {
        rss: { value: memory.rss },
        // Informative only: a kernel without RssAnon is not a failed run.
        anon: memory.anon === undefined ? { failed: "RssAnon unreadable", expected: true } : { value: memory.anon },
      };
    };
    const out: RssReadings = { rss: [], anon: [] };
    let done = 0;
    let last: { rss: Cell; anon: Cell } | undefined;
    for (const point of points) {
      // After a failed reading the process is not trusted again: later points repeat the failure.
      if (last === undefined || !("failed" in last.rss)) last = await sample(point - done);
      done = point;
      out.rss.push(last.rss);
      out.anon.push(last.anon);
    }
    return out;
  } finally {
    await server.close();
  }
}

function describe(outcome: Outcome): string {
  return outcome.kind === "none" ? outcome.reason : `unexpected reply ${summary(outcome.message)}`;
}

function summary(message: Message): string {
  return JSON.stringify(message).slice(0, 160);
}

function isObject(value: unknown): boolean {
  return value !== null && typeof value === "object";
}
