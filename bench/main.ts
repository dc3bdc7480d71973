// `deno task bench`: drives every server over real stdio with one driver,
// prints the figure × server table with ratios to the bare SDK and the
// toolkit's targets, and writes the results as JSON.
//
//   deno run --allow-run --allow-write=bench/results bench/main.ts \
//     [--smoke] [--json FILE] [--only toolkit,sdk-lowlevel,...] [--markdown] [--memory] [--sqlite]
//     [--throughput] [--skip memory,sqlite] [--no-pin]
//
// --memory runs only the peak-memory rows (a fresh toolkit process per case),
// so that a change on the data path can be measured in seconds.
// --sqlite runs only the sqlite example's rows (the cost of its database processes).
// --skip memory,sqlite leaves out the phases --memory and --sqlite run alone
// (the gate's smoke run: bench/main_test.ts runs them under their own flags).
// --throughput runs only the throughput rounds, and judges the rows against the
// raw floor (calls/s and CPU per call, per era and argument size) as a full run
// does, in a minute or two; every other selected server gets the same rows
// against the floor for reference. The floor must be among the servers.
// --no-pin leaves servers and the driver where the scheduler puts them; by
// default every server runs on one CPU (taskset) and the driver on the others.
// --markdown also prints the table as Markdown (for docs/benchmarks.md).
// --smoke runs tiny sizes for CI and exits 0 when every server answered what
// it should, whatever the targets say. A full run also exits 1 when a target
// fails.
//
// --allow-run is unscoped on purpose: the servers are started through
// Deno.execPath(), which a scoped --allow-run=deno does not match when deno is
// a symlink (as under npx), and /proc/<pid> is read through `cat` because Deno
// grants it only to --allow-all.

import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import type { Cell, Env } from "./measure.ts";
import {
  coldStarts,
  freshRuns,
  healthRuns,
  overLimits,
  preflight,
  roundTrips,
  rssRuns,
  throughputRounds,
  typedRounds,
} from "./phases.ts";
import { bundleServer } from "./bundle.ts";
import { busyShare, pinToCpus } from "./machine.ts";
import { type PeakCell, peakRuns, peakTargets } from "./memory.ts";
import { plans } from "./plan.ts";
import { type SqliteCells, sqliteRuns } from "./sqlite.ts";
import { renderMarkdown, renderTable, renderTargets } from "./report.ts";
import { collectFigures, collectTargets, floorRows, type Measured } from "./results.ts";
import { BASELINE, BUNDLE_DIR, BUNDLED, FLOOR, SERVERS, type ServerSpec, TYPED_SERVERS } from "./servers.ts";

const USAGE =
  "usage: deno task bench [--smoke] [--json FILE] [--only NAME,...] [--markdown] [--memory] [--sqlite] [--throughput]" +
  " [--skip memory,sqlite] [--no-pin]";

function refuse(message: string): never {
  console.error(`${message}\n${USAGE}`);
  Deno.exit(2);
}

let flags: {
  smoke?: boolean;
  json?: string;
  only?: string;
  markdown?: boolean;
  memory?: boolean;
  sqlite?: boolean;
  throughput?: boolean;
  skip?: string;
  "no-pin"?: boolean;
};
try {
  flags = parseArgs({
    args: Deno.args,
    options: {
      smoke: { type: "boolean" },
      json: { type: "string" },
      only: { type: "string" },
      markdown: { type: "boolean" },
      memory: { type: "boolean" },
      sqlite: { type: "boolean" },
      throughput: { type: "boolean" },
      skip: { type: "string" },
      "no-pin": { type: "boolean" },
    },
  }).values;
} catch (err) {
  refuse(err instanceof Error ? err.message : String(err));
}
const plan = flags.smoke ? plans.smoke : plans.full;
const repo = resolve(import.meta.dirname!, "..");
const startedAt = new Date();
// Where the JSON goes is settled before the run, so that a path the run may
// not write is refused now, not after minutes of measuring.
const file = flags.json
  ? resolve(flags.json)
  : join(repo, "bench", "results", `${startedAt.toISOString().replaceAll(":", "-")}.json`);
if ((await Deno.permissions.query({ name: "write", path: file })).state !== "granted") {
  refuse(
    `Cannot write the results to ${file}: run with --allow-write=${
      dirname(file)
    } (or pass --json with a path under one you granted)`,
  );
}
const env: Env = { deno: Deno.execPath(), repo, timeoutMs: plan.timeoutMs };
const wanted = flags.only?.split(",").map((s) => s.trim()).filter(Boolean);
const known = [...SERVERS, ...TYPED_SERVERS];
const unknown = wanted?.filter((name) => !known.some((s) => s.name === name)) ?? [];
if (unknown.length > 0) {
  refuse(`Cannot select servers: unknown ${unknown.join(", ")}; known: ${known.map((s) => s.name).join(", ")}`);
}
/** The phases --skip may leave out: those a flag of the same name runs alone. */
const SKIPPABLE = ["memory", "sqlite"];
const skipped = new Set(flags.skip?.split(",").map((s) => s.trim()).filter(Boolean) ?? []);
const unskippable = [...skipped].filter((name) => !SKIPPABLE.includes(name));
if (flags.skip !== undefined && (skipped.size === 0 || unskippable.length > 0)) {
  refuse(`Cannot skip ${unskippable.join(", ") || "nothing"}: --skip takes ${SKIPPABLE.join(", ")}`);
}
if ((flags.memory && skipped.has("memory")) || (flags.sqlite && skipped.has("sqlite"))) {
  refuse("Cannot run a phase alone and skip it: drop --skip or the flag");
}
if ([flags.memory, flags.sqlite, flags.throughput].filter(Boolean).length > 1) {
  refuse("Cannot run more than one of --memory, --sqlite and --throughput: each runs its rows alone");
}
if (flags.throughput && wanted !== undefined && !wanted.includes(FLOOR)) {
  refuse(`Cannot run --throughput without ${FLOOR}: its rows are paired with the floor's; add it to --only`);
}
const problems: string[] = [];
const sqlitePhase = `sqlite example: ${plan.sqlite.freshServers} fresh servers, ${plan.sqlite.queries} warm queries, ` +
  `${plan.sqlite.kills} kills at the deadline`;
const notes: string[] = [];
const clock = performance.now();

/** Says that a phase was left out (--skip) and gives `empty` as its figures. */
function skippedPhase<T>(label: string, empty: T): T {
  console.log(`• ${label}: skipped (--skip)`);
  return empty;
}

async function phase<T>(label: string, work: () => Promise<T>): Promise<T> {
  const t = performance.now();
  console.log(`• ${label}…`);
  const out = await work();
  console.log(`  done in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return out;
}

const busy = await busyShare(1000);
if (busy !== undefined && busy > 0.1) {
  notes.push(
    `the machine was ${(busy * 100).toFixed(0)} % busy before the run started: wall-clock figures may be off`,
  );
}
const pinned = flags["no-pin"] ? "--no-pin" : await pinToCpus();
if (typeof pinned === "string") notes.push(`servers and the driver are not pinned to CPUs: ${pinned}`);
else {
  env.serverCpu = pinned.server;
  console.log(
    `servers run on CPU ${pinned.server}, the driver on CPU ${pinned.driver} (taskset); ` +
      "a start is timed on all of them",
  );
}
// A start is timed as a host makes it: on any of the machine's CPUs. Deno starts on
// several threads at once, and one CPU for all of them would time another start.
// The sqlite rows, a server with database processes of its own, run there too.
const launching: Env = typeof pinned === "string" ? env : { ...env, serverCpu: pinned.all };
if (flags.memory) await memoryOnly();
if (flags.sqlite) await sqliteOnly();
const selected = SERVERS.filter((s) => wanted === undefined || wanted.includes(s.name));
const servers = await phase(
  `preflight: ${selected.map((s) => s.name).join(", ")}`,
  () => preflight(env, selected, problems, notes),
);
if (flags.throughput) await throughputOnly(servers);
// With the toolkit, its server is also bundled as `deno task bundle` ships it, and that bundle's start measured
// beside the others; a bundle that cannot be built fails its cells, with the reason, and the run goes on.
const toolkit = servers.find((s) => s.name === "toolkit");
const bundle = toolkit && await phase(
  `bundle: deno bundle --code-splitting --minify --outdir ${BUNDLE_DIR} ${toolkit.file}`,
  () => bundleServer(env, toolkit.file, BUNDLE_DIR),
);
const bundled: ServerSpec | undefined = bundle && { ...BUNDLED, file: "file" in bundle ? bundle.file : "" };
// The table's columns: the bundle, when one was attempted, beside the toolkit.
const columns = servers.flatMap((s) => s === toolkit && bundled ? [s, bundled] : [s]);
const starting = bundle && "file" in bundle ? columns : servers;
const cold = await phase(
  `cold start: ${plan.coldRuns} runs each after ${plan.coldWarmRuns} discarded, interleaved`,
  () => coldStarts(launching, starting, plan),
);
const health = await phase(
  `--health: ${plan.healthRuns} runs each, interleaved with deno run of an empty file`,
  () => healthRuns(launching, starting, plan),
);
if (bundle && "failed" in bundle) cold[BUNDLED.name] = health[BUNDLED.name] = { failed: bundle.failed };
const fresh = await phase(
  `fresh processes: ${plan.fresh} pipelined calls right after initialize, ${plan.freshRuns} processes each`,
  () => freshRuns(env, servers, plan),
);
const tput = await phase(
  `throughput: ${plan.rounds} rounds of ${plan.sequential} sequential and ${plan.pipelined} pipelined calls`,
  () => throughputRounds(env, servers, plan),
);
const trips = await phase("echo round trips", () => roundTrips(env, servers, plan));
const over = await phase("over-limit messages (toolkit)", () => overLimits(env, servers, plan));
const rss = await phase(
  `RSS after ${plan.rssFirst}, ${plan.rssMiddle} and ${plan.rssSecond} calls`,
  () => rssRuns(env, servers, plan),
);

const peaks = skipped.has("memory")
  ? skippedPhase<Record<string, PeakCell>>("peak memory of one large or deep message", {})
  : await phase("peak memory of one large or deep message (toolkit)", () => peakRuns(env, servers, plan));

const sqlite = skipped.has("sqlite")
  ? skippedPhase<SqliteCells>("sqlite example", {})
  : wanted === undefined || wanted.includes("toolkit")
  ? await phase(sqlitePhase, () => sqliteRuns(launching, plan))
  : {};

// Both or neither: the figure is their ratio.
const typedServers = TYPED_SERVERS.some((s) => wanted === undefined || wanted.includes(s.name)) ? TYPED_SERVERS : [];
const { rate: typed, cpu: typedCpu, paired: typedPaired } = typedServers.length === 0
  ? { rate: {}, cpu: {}, paired: {} }
  : await phase(
    `typed arguments: ${plan.rounds} rounds of ${plan.pipelined} pipelined four-argument calls, validated and not`,
    () => typedRounds(env, typedServers, plan),
  );

const measured: Measured = { plan, servers: columns, cold, fresh, health, tput, trips, over, rss, typed, typedCpu };
const figures = collectFigures(measured);
const targets = [...collectTargets(measured, figures), ...peakTargets(peaks)];
for (const figure of figures) {
  for (const [name, cell] of Object.entries(figure.cells)) {
    if ("failed" in cell && !cell.expected && cell.failed !== "n/a") {
      problems.push(`${name}: ${figure.label}: ${cell.failed}`);
    }
  }
}
for (const [label, cell] of Object.entries(over)) {
  if ("failed" in cell) problems.push(`toolkit: over-limit, ${label}: ${cell.failed}`);
}
for (const [label, { cell }] of Object.entries(peaks)) {
  if ("failed" in cell) problems.push(`toolkit: peak memory, ${label}: ${cell.failed}`);
}
for (const [label, cell] of Object.entries(sqlite)) {
  if ("failed" in cell) problems.push(`sqlite example: ${label}: ${cell.failed}`);
}

const seconds = (performance.now() - clock) / 1000;
const mode = flags.smoke ? "Smoke run (tiny sizes; targets are informative only)" : "Full run";
console.log(
  `\n${mode}: ${seconds.toFixed(0)} s, Deno ${Deno.version.deno}, ${navigator.hardwareConcurrency} cores.` +
    ` Each cell: value (ratio to "${BASELINE}").\n`,
);
console.log(renderTable(figures, columns, BASELINE));
if (flags.markdown) console.log(`\n${renderMarkdown(figures, columns, BASELINE)}`);
console.log(`\n--health reference, deno run of an empty file: ${cellText(health.empty)} ms`);
for (const [label, cell] of Object.entries(over)) console.log(`over-limit, ${label}: ${cellText(cell)}`);
printPeaks(peaks);
printSqlite(sqlite);
for (const spec of typedServers) {
  console.log(`pipelined calls/s, warm, ${plan.window} in flight, ${spec.label}: ${cellText(typed[spec.name])}`);
  console.log(`  server CPU µs per call: ${cellText(typedCpu[spec.name])}`);
  if (typedPaired[spec.name] !== undefined) {
    const ratio = typedPaired[spec.name];
    const shown = "value" in ratio ? `${ratio.value.toFixed(3)}× (${ratio.detail})` : ratio.failed;
    console.log(`  rate ÷ the unvalidated one's in the same round: ${shown}`);
  }
  const cell = typed[spec.name];
  if (cell !== undefined && "failed" in cell) problems.push(`${spec.name}: typed arguments: ${cell.failed}`);
}
const targetsHeading = flags.smoke
  ? "Targets (toolkit), at smoke sizes: shown so that the check itself runs, not judged (a full run judges them)"
  : "Targets (toolkit)";
console.log(`\n${targetsHeading}:\n${renderTargets(targets)}`);
for (const note of notes) console.log(`note: ${note}`);
for (const problem of problems) console.log(`PROBLEM: ${problem}`);

await saveJson({
  mode: flags.smoke ? "smoke" : "full",
  startedAt: startedAt.toISOString(),
  seconds,
  machine: {
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    target: Deno.build.target,
    cores: navigator.hardwareConcurrency,
    busyBeforeRun: busy,
  },
  plan,
  baseline: BASELINE,
  servers: columns.map(({ name, label, file, permissions }) => ({ name, label, file, permissions })),
  figures,
  // The pipelined and CPU rows' cells of each round (the same index is the same round on every server), of which
  // the figures hold the medians and the floor targets the median of the toolkit's ratios to the floor's.
  throughputRounds: Object.fromEntries(Object.entries(tput).map(([name, { rounds }]) => [name, rounds])),
  healthEmptyMs: health.empty,
  overLimit: over,
  // Peak RSS (VmHWM, MiB) of a fresh toolkit process per case, with the 4 × N + 64 MiB limit where it applies.
  peakMemory: peaks,
  // Pipelined calls/s of the four-argument echo, validated ("typed", "typed-refs") and not, and server CPU µs per call.
  typedArguments: typed,
  typedArgumentsCpuUs: typedCpu,
  typedArgumentsPairedRatio: typedPaired,
  // The sqlite example's database processes: ms per run_query warm, on a fresh server, right after a kill.
  sqlite,
  // Each process's own RSS and RssAnon readings (KiB) at plan.rssFirst, rssMiddle and rssSecond; the figures hold their medians.
  rssProcesses: Object.fromEntries(Object.entries(rss).map(([name, { runs }]) => [name, runs])),
  targets,
  notes,
  problems,
});
const targetFailed = targets.some((t) => t.pass === false);
Deno.exit(problems.length > 0 || (!flags.smoke && targetFailed) ? 1 : 0);

/** `--memory`: the peak-memory rows alone, printed with their targets; exits like a full run. */
async function memoryOnly(): Promise<never> {
  const toolkit = SERVERS.filter((s) => s.name === "toolkit");
  const peaks = await phase("peak memory of one large or deep message (toolkit)", () => peakRuns(env, toolkit, plan));
  printPeaks(peaks);
  const targets = peakTargets(peaks);
  console.log(`\nTargets (toolkit):\n${renderTargets(targets)}`);
  for (const note of notes) console.log(`note: ${note}`);
  const failed = Object.values(peaks).some(({ cell }) => "failed" in cell);
  const json = { mode: flags.smoke ? "smoke" : "full", memoryOnly: true, startedAt: startedAt.toISOString(), plan };
  await saveJson({ ...json, peakMemory: peaks, targets, notes });
  Deno.exit(failed || (!flags.smoke && targets.some((t) => t.pass === false)) ? 1 : 0);
}

/**
 * `--throughput`: the throughput rounds alone, with the toolkit's rows against
 * the floor judged as a full run judges them, and every other server's beside
 * them for reference; exits like a full run.
 */
async function throughputOnly(servers: readonly ServerSpec[]): Promise<never> {
  const tput = await phase(
    `throughput: ${plan.rounds} rounds of ${plan.sequential} sequential and ${plan.pipelined} pipelined calls`,
    () => throughputRounds(env, servers, plan),
  );
  for (const [name, { rounds }] of Object.entries(tput)) {
    const failures = new Set(
      rounds.flatMap((cells) => Object.values(cells).flatMap((c) => "failed" in c ? [c.failed] : [])),
    );
    for (const failure of failures) problems.push(`${name}: throughput: ${failure}`);
  }
  const judged = servers.some((s) => s.name === "toolkit") ? floorRows(plan, tput) : [];
  const reference = Object.fromEntries(
    servers.filter((s) => s.name !== "toolkit" && s.name !== FLOOR).map((s) => [s.name, floorRows(plan, tput, s.name)]),
  );
  if (judged.length > 0) console.log(`\nTargets (toolkit), against ${FLOOR} round by round:\n${renderTargets(judged)}`);
  for (const [name, rows] of Object.entries(reference)) {
    const shown = rows.map((t) => `      ${t.name.replace(/, [≥≤] .*$/, "")}: ${t.measured}`).join("\n");
    console.log(`\nFor reference, ${name} against ${FLOOR}, the same rows (not judged):\n${shown}`);
  }
  for (const note of notes) console.log(`note: ${note}`);
  for (const problem of problems) console.log(`PROBLEM: ${problem}`);
  await saveJson({
    mode: flags.smoke ? "smoke" : "full",
    throughputOnly: true,
    startedAt: startedAt.toISOString(),
    plan,
    throughputRounds: Object.fromEntries(Object.entries(tput).map(([name, { rounds }]) => [name, rounds])),
    targets: judged,
    reference,
    notes,
    problems,
  });
  Deno.exit(problems.length > 0 || (!flags.smoke && judged.some((t) => t.pass === false)) ? 1 : 0);
}

/** `--sqlite`: the sqlite example's rows alone; exits 1 when one could not be measured. */
async function sqliteOnly(): Promise<never> {
  const sqlite = await phase(sqlitePhase, () => sqliteRuns(launching, plan));
  printSqlite(sqlite);
  for (const note of notes) console.log(`note: ${note}`);
  const json = { mode: flags.smoke ? "smoke" : "full", sqliteOnly: true, startedAt: startedAt.toISOString(), plan };
  await saveJson({ ...json, sqlite, notes });
  Deno.exit(Object.values(sqlite).some((cell) => "failed" in cell) ? 1 : 0);
}

/** Writes the run's record as JSON to the file settled at the start, and says where. */
async function saveJson(record: Record<string, unknown>): Promise<void> {
  await Deno.mkdir(dirname(file), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(record, null, 2) + "\n");
  console.log(`\nJSON: ${file}`);
}

function printSqlite(cells: SqliteCells): void {
  for (const [label, cell] of Object.entries(cells)) console.log(`sqlite example, ${label}: ${cellText(cell)}`);
}

function printPeaks(peaks: Record<string, PeakCell>): void {
  for (const [label, { cell, limitMiB }] of Object.entries(peaks)) {
    const limit = limitMiB === undefined ? "" : `; limit 4 × N + 64 MiB = ${limitMiB.toFixed(0)} MiB`;
    const value = "value" in cell ? `${cell.value.toFixed(0)} MiB (${cell.detail}${limit})` : cell.failed;
    console.log(`peak RSS, ${label}: ${value}`);
  }
}

function cellText(cell: Cell | undefined): string {
  if (cell === undefined) return "not measured";
  return "value" in cell ? `${cell.value.toFixed(1)}${cell.detail ? ` (${cell.detail})` : ""}` : cell.failed;
}
