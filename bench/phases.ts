// The phases of a run, each over every selected server. Repeated
// measurements interleave the servers (A B C, A B C, …) so that a burst of
// noise on the shared machine lands on all of them, not on one.

import {
  type Cell,
  coldStart,
  type Env,
  type Era,
  freshRate,
  healthRun,
  latencyCells,
  modernThroughput,
  overLimit,
  roundTrip,
  rssAfter,
  type RssReadings,
  sizedThroughput,
  start,
  throughput,
  typedRate,
  Unavailable,
} from "./measure.ts";
import { formatBytes, type Plan } from "./plan.ts";
import { type ServerSpec, UNVALIDATED } from "./servers.ts";
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

/** Median cold start per server. */
export async function coldStarts(env: Env, servers: readonly ServerSpec[], plan: Plan): Promise<Record<string, Cell>> {
  const runs: Record<string, Cell[]> = {};
  for (let run = 0; run < plan.coldWarmRuns + plan.coldRuns; run++) {
    for (const spec of servers) {
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

/** Throughput figures per server: medians over rounds, latency percentiles over every sample. */
export interface ThroughputFigures {
  sequential: Cell;
  p50: Cell;
  p99: Cell;
  pipelined: Cell;
  cpu: Cell;
  concurrent: Cell;
  /** Pipelined calls/s in the 2026-07-28 era; absent for a server that does not serve it. */
  pipelinedModern?: Cell;
  /** Server CPU per pipelined 2026-07-28 call; absent as above. */
  cpuModern?: Cell;
  /** The sized rows, keyed by {@linkcode sizedKey}: the initialize era on every server, 2026-07-28 where served. */
  sized: Record<string, { pipelined: Cell; cpu: Cell }>;
}

/** The eras every sized row is measured in (the second only on servers that serve it). */
export const ERAS: readonly Era[] = ["initialize", "2026-07-28"];

/** The key of a sized row: its era and argument size. */
export function sizedKey(era: Era, bytes: number): string {
  return `${era} ${bytes}`;
}

/** Runs `plan.rounds` throughput rounds, a fresh process per server per round. */
export async function throughputRounds(
  env: Env,
  servers: readonly ServerSpec[],
  plan: Plan,
): Promise<Record<string, ThroughputFigures>> {
  const seq: Record<string, Cell[]> = {};
  const pipe: Record<string, Cell[]> = {};
  const cpu: Record<string, Cell[]> = {};
  const conc: Record<string, Cell[]> = {};
  const pipeModern: Record<string, Cell[]> = {};
  const cpuModern: Record<string, Cell[]> = {};
  const samples: Record<string, number[]> = {};
  // Per server, per sized row: the calls/s and the CPU per call of each round.
  const sized: Record<string, Record<string, { pipelined: Cell[]; cpu: Cell[] }>> = {};
  const sizedRows = (spec: ServerSpec) =>
    ERAS.filter((era) => era === "initialize" || spec.modern).flatMap((era) =>
      plan.argumentSizes.map((bytes) => ({ era, bytes, key: sizedKey(era, bytes) }))
    );
  for (let round = 0; round < plan.rounds; round++) {
    for (const spec of servers) {
      const rows = (sized[spec.name] ??= {});
      try {
        const server = await start(env, spec);
        try {
          const t = await throughput(server, env, plan);
          (seq[spec.name] ??= []).push(t.sequentialPerSec);
          (pipe[spec.name] ??= []).push(t.pipelinedPerSec);
          (cpu[spec.name] ??= []).push(t.cpuUsPerCall);
          (conc[spec.name] ??= []).push(t.concurrentMs);
          (samples[spec.name] ??= []).push(...t.latenciesUs);
          if (spec.modern) {
            // After the initialize-era figures, so that their runs are the same as on every other server.
            const m = await modernThroughput(server, env, plan);
            (pipeModern[spec.name] ??= []).push(m.pipelinedPerSec);
            (cpuModern[spec.name] ??= []).push(m.cpuUsPerCall);
          }
          for (const { era, bytes, key } of sizedRows(spec)) {
            const s = await sizedThroughput(server, env, era, bytes, plan);
            const row = (rows[key] ??= { pipelined: [], cpu: [] });
            row.pipelined.push(s.pipelinedPerSec);
            row.cpu.push(s.cpuUsPerCall);
          }
        } finally {
          await server.close();
        }
      } catch (err) {
        const tables = spec.modern ? [seq, pipe, cpu, conc, pipeModern, cpuModern] : [seq, pipe, cpu, conc];
        for (const table of tables) (table[spec.name] ??= []).push(failure(err));
        for (const { key } of sizedRows(spec)) {
          const row = (rows[key] ??= { pipelined: [], cpu: [] });
          row.pipelined.push(failure(err));
          row.cpu.push(failure(err));
        }
      }
    }
  }
  return Object.fromEntries(servers.map((s) => {
    const { p50, p99 } = latencyCells(samples[s.name] ?? []);
    return [s.name, {
      sequential: medianCell(seq[s.name] ?? []),
      p50,
      p99,
      pipelined: medianCell(pipe[s.name] ?? []),
      cpu: medianCell(cpu[s.name] ?? []),
      concurrent: medianCell(conc[s.name] ?? []),
      ...(s.modern
        ? { pipelinedModern: medianCell(pipeModern[s.name] ?? []), cpuModern: medianCell(cpuModern[s.name] ?? []) }
        : {}),
      sized: Object.fromEntries(
        Object.entries(sized[s.name] ?? {}).map((
          [key, row],
        ) => [key, { pipelined: medianCell(row.pipelined), cpu: medianCell(row.cpu) }]),
      ),
    }];
  }));
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
