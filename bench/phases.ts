// The phases of a run, each over every selected server. Repeated
// measurements interleave the servers (A B C, A B C, …) so that a burst of
// noise on the shared machine lands on all of them, not on one.

import {
  type Cell,
  coldStart,
  concurrentSleeps,
  echoPart,
  type Env,
  type Era,
  freshRate,
  healthRun,
  latencyCells,
  overLimit,
  roundTrip,
  rssAfter,
  type RssReadings,
  sequentialCalls,
  start,
  startModern,
  typedRate,
  Unavailable,
} from "./measure.ts";
import type { ServerProcess } from "./driver.ts";
import { formatBytes, type Plan } from "./plan.ts";
import { BUNDLED, FLOOR, type ServerSpec, UNVALIDATED } from "./servers.ts";
import { median } from "./stats.ts";

/** The median of measured cells; the first failure when any failed. */
export function medianCell(cells: readonly Cell[]): Cell {
  const failed = cells.find((c) => "failed" in c);
  if (failed) return failed;
  if (cells.length === 0) return { failed: "not measured" };
  const values = cells.map((c) => ("value" in c ? c.value : NaN));
  const spread = `${Math.min(...values).toPrecision(4)}–${Math.max(...values).toPrecision(4)}`;
  return { value: median(values), detail: `median of ${cells.length}, range ${spread}` };
}

function failure(err: unknown): Cell {
  return { failed: err instanceof Error ? err.message : String(err) };
}

/**
 * Starts each server once and checks it lists echo and sleep. Returns the
 * servers that can run; this also fills Deno's caches, so that cold starts
 * do not measure a first compile.
 */
export async function preflight(
  env: Env,
  servers: readonly ServerSpec[],
  problems: string[],
  notes: string[],
): Promise<ServerSpec[]> {
  const available: ServerSpec[] = [];
  // The first start may have to fill Deno's npm cache (in a fresh CI clone): allow it a minute.
  const patient: Env = { ...env, timeoutMs: Math.max(env.timeoutMs, 60_000) };
  for (const spec of servers) {
    try {
      const server = await start(patient, spec);
      const listed = await server.request("tools/list", {}, env.timeoutMs);
      await server.close();
      const tools = listed.kind === "reply" ? (listed.message.result as { tools?: { name: string }[] })?.tools : [];
      const names = (tools ?? []).map((t) => t.name);
      if (!names.includes("echo") || !names.includes("sleep")) {
        problems.push(`${spec.name}: tools/list lacks echo or sleep`);
      }
      available.push(spec);
    } catch (err) {
      if (err instanceof Unavailable) notes.push(`${err.message}; left out`);
      else problems.push(`${spec.name}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return available;
}

/** Median cold start per server, the servers in {@linkcode roundOrder} run by run. */
export async function coldStarts(env: Env, servers: readonly ServerSpec[], plan: Plan): Promise<Record<string, Cell>> {
  const runs: Record<string, Cell[]> = {};
  for (let run = 0; run < plan.coldWarmRuns + plan.coldRuns; run++) {
    for (const spec of roundOrder(servers, run)) {
      const cell = await coldStart(env, spec);
      if (run >= plan.coldWarmRuns) (runs[spec.name] ??= []).push(cell);
    }
  }
  return Object.fromEntries(servers.map((s) => [s.name, medianCell(runs[s.name] ?? [])]));
}

/** Median `--health` time per server that has the flag, and of `deno run` of an empty file under "empty". */
export async function healthRuns(env: Env, servers: readonly ServerSpec[], plan: Plan): Promise<Record<string, Cell>> {
  const runs: Record<string, Cell[]> = {};
  const targets = [...servers.filter((s) => s.health), "empty" as const];
  for (let run = 0; run < plan.healthRuns + 1; run++) {
    for (const spec of targets) {
      const cell = await healthRun(env, spec);
      if (run > 0) (runs[spec === "empty" ? "empty" : spec.name] ??= []).push(cell);
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([name, cells]) => [name, medianCell(cells)]));
}

/** Median pipelined rate of fresh processes per server, `plan.freshRuns` each, interleaved. */
export async function freshRuns(env: Env, servers: readonly ServerSpec[], plan: Plan): Promise<Record<string, Cell>> {
  const runs: Record<string, Cell[]> = {};
  for (let run = 0; run < plan.freshRuns; run++) {
    for (const spec of servers) {
      (runs[spec.name] ??= []).push(await freshRate(env, spec, plan.fresh, plan.window).catch(failure));
    }
  }
  return Object.fromEntries(servers.map((s) => [s.name, medianCell(runs[s.name] ?? [])]));
}

/**
 * Throughput figures per server: medians over rounds, latency percentiles
 * over every sample, and each round's own cells, so that two servers can be
 * compared round by round.
 */
export interface ThroughputFigures {
  /** The medians over rounds, keyed `"sequential"`, `"concurrent"` and {@linkcode rowKey} of each pipelined and CPU row. */
  cells: Record<string, Cell>;
  p50: Cell;
  p99: Cell;
  /**
   * The same keys' cells, one record per round in round order: index `i` is
   * round `i` on every server, measured back to back with the others. A row
   * the server does not serve (the 2026-07-28 era on the SDK) has no key.
   */
  rounds: Record<string, Cell>[];
}

/** The eras every pipelined and CPU row is measured in (the second only on servers that serve it). */
export const ERAS: readonly Era[] = ["initialize", "2026-07-28"];

/**
 * The key of a pipelined calls/s or CPU-per-call row: `pipelined`,
 * `cpuModern`, `pipelined1536`, `cpuModern8192`… (no size: the small call).
 */
export function rowKey(what: "pipelined" | "cpu", era: Era, bytes?: number): string {
  return `${what}${era === "2026-07-28" ? "Modern" : ""}${bytes ?? ""}`;
}

/** The servers judged against one another, kept side by side in every round. */
const BACK_TO_BACK: readonly string[] = ["toolkit", BUNDLED.name, FLOOR];

/**
 * The order of the servers in round `round`: the toolkit (and its bundle)
 * beside the floor, so that what is judged against the floor meets the same
 * moment of the machine, then the others; every odd round reversed, so that
 * no server always goes first.
 */
export function roundOrder<T extends { name: string }>(servers: readonly T[], round: number): T[] {
  const paired = BACK_TO_BACK.flatMap((name) => servers.filter((s) => s.name === name));
  const order = [...paired, ...servers.filter((s) => !BACK_TO_BACK.includes(s.name))];
  return round % 2 === 0 ? order : order.reverse();
}

/**
 * Runs `plan.rounds` throughput rounds, a fresh process per server per round,
 * in {@linkcode roundOrder}. Every server runs side by side, row by row: each
 * is started, then every row is measured on each of them in turn before the
 * next row (a pipelined row in `plan.parts` parts, the servers taking turns
 * part by part), so that every figure is taken the same way and the two of a
 * ratio over the same second or two.
 */
export async function throughputRounds(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<Record<string, ThroughputFigures>> {
  const rounds: Record<string, Record<string, Cell>[]> = {};
  const samples: Record<string, number[]> = {};
  const keys = (spec: ServerSpec) => [
    "sequential",
    "concurrent",
    ...ERAS.filter((era) => era === "initialize" || spec.modern).flatMap((era) =>
      [undefined, ...plan.argumentSizes].flatMap((
        bytes,
      ) => [rowKey("pipelined", era, bytes), rowKey("cpu", era, bytes)])
    ),
  ];
  for (let round = 0; round < plan.rounds; round++) {
    // Every server of the round side by side, part by part: each is measured as the others are, in turns, so that a
    // ratio of two compares figures taken the same way over the same seconds.
    const runs: Run[] = roundOrder(servers, round).map((spec) => {
      const cells: Record<string, Cell> = {};
      (rounds[spec.name] ??= []).push(cells);
      return { spec, cells, samples: samples[spec.name] ??= [] };
    });
    await measureSideBySide(env, plan, runs);
    // What a round measured before a failure stands; the rest of its rows carry the failure.
    for (const run of runs) for (const key of keys(run.spec)) run.cells[key] ??= failure(run.failed ?? "not measured");
  }
  return Object.fromEntries(servers.map((s) => {
    const { p50, p99 } = latencyCells(samples[s.name] ?? []);
    const list = rounds[s.name] ?? [];
    const cells = Object.fromEntries(
      keys(s).map((key) => [key, medianCell(list.map((cells) => cells[key] ?? { failed: "not measured" }))]),
    );
    return [s.name, { cells, p50, p99, rounds: list }];
  }));
}

/** One server's round: where its cells and latency samples go, and the failure that ended it early. */
export interface Run {
  spec: ServerSpec;
  cells: Record<string, Cell>;
  samples: number[];
  failed?: unknown;
}

/** A row measured on one server's process, its figures put into the run's cells. */
export type Row = (server: ServerProcess, run: Run) => Promise<void>;

/**
 * Measures every throughput row of `runs`, each row on every server in turn:
 * the initialize era on one process each, then the 2026-07-28 era on another
 * (a stdio server has one client, which speaks one era). A pipelined row is
 * measured in `plan.parts` parts, the servers taking turns part by part, so a
 * burst of load on the machine lands on all of them. A server that fails a
 * row is closed and measured no further this round.
 */
async function measureSideBySide(env: Env, plan: Plan, runs: readonly Run[]): Promise<void> {
  const initialize: Row[] = [
    async (server, run) => {
      const t = await sequentialCalls(server, env, plan);
      run.cells.sequential = t.sequentialPerSec;
      run.samples.push(...t.latenciesUs);
    },
    // Warmed by the sequential row's small calls.
    ...pipelinedParts(env, plan, "initialize", undefined, 0, plan.pipelined),
    ...plan.argumentSizes.flatMap((bytes) =>
      pipelinedParts(env, plan, "initialize", bytes, plan.sizedWarmup, plan.sizedCalls)
    ),
    // Last: a call of another tool leaves the toolkit's small calls dearer (concurrentSleeps()).
    async (server, run) => void (run.cells.concurrent = await concurrentSleeps(server, env, plan)),
  ];
  const modern: Row[] = [
    ...pipelinedParts(env, plan, "2026-07-28", undefined, plan.warmup, plan.pipelined),
    ...plan.argumentSizes.flatMap((bytes) =>
      pipelinedParts(env, plan, "2026-07-28", bytes, plan.sizedWarmup, plan.sizedCalls)
    ),
  ];
  await rowsSideBySide(runs, (spec) => start(env, spec), initialize);
  await rowsSideBySide(runs.filter((run) => run.spec.modern), (spec) => startModern(env, spec), modern);
}

/**
 * The pipelined calls/s and CPU rows of echo calls in `era` (of `bytes` ASCII
 * characters; "hi" without), as `plan.parts` rows: the first warms up with
 * `warmup` calls, each measures its share of `calls`, and the last puts the
 * whole into the run's cells: the calls over the parts' summed time, the
 * parts' CPU over the calls. A part that fails makes the row's cells that
 * failure. `measure` measures one part ({@linkcode echoPart}; a test may count
 * what it is asked).
 */
export function pipelinedParts(
  env: Env,
  plan: Pick<Plan, "parts" | "window">,
  era: Era,
  bytes: number | undefined,
  warmup: number,
  calls: number,
  measure: typeof echoPart = echoPart,
): Row[] {
  const text = bytes === undefined ? "hi" : "x".repeat(bytes);
  const parts = Math.max(1, Math.min(plan.parts, calls));
  const sums = new Map<Run, { seconds: number; cpuUs: number; calls: number; failed?: Cell }>();
  return Array.from({ length: parts }, (_, part): Row => async (server, run) => {
    const share = Math.floor(calls / parts) + (part < calls % parts ? 1 : 0);
    const f = await measure(server, env, era, text, {
      warmup: part === 0 ? warmup : 0,
      calls: share,
      window: plan.window,
    });
    const sum = sums.get(run) ?? { seconds: 0, cpuUs: 0, calls: 0 };
    sums.set(run, sum);
    if ("failed" in f.pipelinedPerSec) sum.failed ??= f.pipelinedPerSec;
    else if ("failed" in f.cpuUsPerCall) sum.failed ??= f.cpuUsPerCall;
    else {
      sum.seconds += share / f.pipelinedPerSec.value;
      sum.cpuUs += share * f.cpuUsPerCall.value;
      sum.calls += share;
    }
    if (part < parts - 1) return;
    run.cells[rowKey("pipelined", era, bytes)] = sum.failed ?? { value: sum.calls / sum.seconds };
    run.cells[rowKey("cpu", era, bytes)] = sum.failed ?? { value: sum.cpuUs / sum.calls };
  });
}

/**
 * Starts a process per run (not failed yet), measures each of `rows` on every
 * process in turn before the next row (every other row in reverse order), and
 * closes them; a run whose start or
 * row fails is closed and keeps its failure.
 */
export async function rowsSideBySide(
  runs: readonly Run[],
  launch: (spec: ServerSpec) => Promise<ServerProcess>,
  rows: readonly Row[],
): Promise<void> {
  const live = new Map<Run, ServerProcess>();
  try {
    for (const run of runs) {
      if (run.failed !== undefined) continue;
      try {
        live.set(run, await launch(run.spec));
      } catch (err) {
        run.failed = err;
      }
    }
    for (const [i, row] of rows.entries()) {
      // Every other row in reverse, so that no server always goes first (a part after its twin: A B, B A, A B…).
      const turn = i % 2 === 0 ? [...live] : [...live].reverse();
      for (const [run, server] of turn) {
        try {
          await row(server, run);
        } catch (err) {
          run.failed = err;
          live.delete(run);
          await server.close();
        }
      }
    }
  } finally {
    for (const server of live.values()) await server.close();
  }
}

/** Round trip per size (key: the size in bytes) per server. */
export async function roundTrips(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<Record<number, Record<string, Cell>>> {
  const out: Record<number, Record<string, Cell>> = {};
  for (const [i, bytes] of plan.largeSizes.entries()) {
    out[bytes] = {};
    for (const spec of servers) {
      out[bytes][spec.name] = await roundTrip(env, spec, bytes, plan.largeRuns[i]).catch(failure);
    }
  }
  return out;
}

/** The over-limit checks of the toolkit server, keyed by a printable label. */
export async function overLimits(env: Env, servers: readonly ServerSpec[], plan: Plan): Promise<Record<string, Cell>> {
  const toolkit = servers.find((s) => s.name === "toolkit");
  if (!toolkit) return {};
  const { limit, bytes } = plan.overLimit;
  const out: Record<string, Cell> = {};
  out[`${formatBytes(bytes)} sent, maxMessageBytes ${formatBytes(limit)}`] = await overLimit(env, toolkit, limit, bytes)
    .catch(failure);
  if (plan.overDefault) {
    const big = 64 * 1024 * 1024 + 1024;
    out[`${formatBytes(big)} sent, default maxMessageBytes`] = await overLimit(env, toolkit, undefined, big)
      .catch(failure);
  }
  return out;
}

/** The RSS readings of one server: the median at each point, and each process's own readings. */
export interface RssFigures extends RssReadings {
  /** One entry per process, in the order they ran. */
  runs: RssReadings[];
}

/**
 * RSS after `plan.rssFirst`, `plan.rssMiddle` and `plan.rssSecond` calls, per
 * server: `plan.rssProcesses` fresh processes each, servers interleaved, the
 * median taken at each point like every other repeated row.
 */
export async function rssRuns(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<Record<string, RssFigures>> {
  const points = [plan.rssFirst, plan.rssMiddle, plan.rssSecond];
  const runs: Record<string, RssReadings[]> = {};
  for (let i = 0; i < plan.rssProcesses; i++) {
    for (const spec of servers) {
      const readings = await rssAfter(env, spec, points, plan.window).catch((err) => {
        const cells = points.map(() => failure(err));
        return { rss: cells, anon: cells };
      });
      (runs[spec.name] ??= []).push(readings);
    }
  }
  const out: Record<string, RssFigures> = {};
  for (const [name, list] of Object.entries(runs)) {
    out[name] = {
      rss: points.map((_, i) => medianCell(list.map((r) => r.rss[i]))),
      anon: points.map((_, i) => medianCell(list.map((r) => r.anon[i]))),
      runs: list,
    };
  }
  return out;
}

/**
 * Median pipelined rate of the four-argument `echo` per typed server, median
 * server CPU time per call, and the median per-round ratio of each validated
 * server's rate to the unvalidated one's (`UNVALIDATED`): one fresh process
 * per server per round, `plan.rounds` rounds, interleaved. Servers measured
 * in the same round met the same load, so the paired ratio moves less than
 * the ratio of medians on a busy machine.
 */
export async function typedRounds(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<{ rate: Record<string, Cell>; cpu: Record<string, Cell>; paired: Record<string, Cell> }> {
  const rates: Record<string, Cell[]> = {};
  const cpus: Record<string, Cell[]> = {};
  for (let round = 0; round < plan.rounds; round++) {
    for (const spec of servers) {
      const { pipelinedPerSec, cpuUsPerCall } = await typedRate(env, spec, plan).catch((err) => {
        const failed = failure(err);
        return { pipelinedPerSec: failed, cpuUsPerCall: failed };
      });
      (rates[spec.name] ??= []).push(pipelinedPerSec);
      (cpus[spec.name] ??= []).push(cpuUsPerCall);
    }
  }
  const median = (runs: Record<string, Cell[]>) =>
    Object.fromEntries(servers.map((s) => [s.name, medianCell(runs[s.name] ?? [])]));
  const paired: Record<string, Cell> = {};
  for (const spec of servers.filter((s) => s.name !== UNVALIDATED)) {
    const ratios = (rates[spec.name] ?? []).map((cell, round): Cell => {
      const base = rates[UNVALIDATED]?.[round];
      if (!("value" in cell)) return cell;
      if (base === undefined || !("value" in base)) return base ?? { failed: "not measured" };
      return { value: cell.value / base.value };
    });
    paired[spec.name] = medianCell(ratios);
  }
  return { rate: median(rates), cpu: median(cpus), paired };
}
