import assert from "node:assert/strict";
import type { Cell, RssReadings } from "./measure.ts";
import { ERAS, medianCell, rowKey, type RssFigures, type ThroughputFigures } from "./phases.ts";
import { plans } from "./plan.ts";
import { valueOf } from "./report.ts";
import { collectFigures, collectTargets, type Measured } from "./results.ts";
import { BUNDLED, SERVERS } from "./servers.ts";

const MiB = 1024;

function measured(rss: Record<string, RssFigures>): Measured {
  return {
    plan: plans.full,
    servers: SERVERS,
    cold: {},
    fresh: {},
    health: {},
    tput: {},
    trips: {},
    over: {},
    rss,
  };
}

function readings(rssMiB: number[], anonMiB: number[]): RssFigures {
  const one: RssReadings = {
    rss: rssMiB.map((value) => ({ value: value * MiB })),
    anon: anonMiB.map((value) => ({ value: value * MiB })),
  };
  return { ...one, runs: [one] };
}

function rssTarget(m: Measured) {
  const target = collectTargets(m, collectFigures(m)).find((t) => t.name.startsWith("RSS after"));
  assert.ok(target, "the RSS target is always listed");
  return target;
}

Deno.test("the RSS target compares the last reading with the first, with a 10 % bound", () => {
  const pass = rssTarget(measured({ toolkit: readings([50, 55, 55], [18, 18.5, 18.5]) }));
  assert.equal(pass.pass, true);
  assert.match(pass.measured, /^\+10\.0 %/);
  const fail = rssTarget(measured({ toolkit: readings([50, 50, 55.5], [18, 18, 18]) }));
  assert.equal(fail.pass, false);
  assert.match(fail.measured, /^\+11\.0 %/);
});

Deno.test("the RSS target prints the floor, the growth from the middle reading and the anonymous part as context only", () => {
  const target = rssTarget(measured({
    toolkit: readings([50, 56, 56.56], [18, 18.6, 18.4]),
    "raw-floor": readings([40, 46, 46], [11, 11, 11]),
  }));
  assert.equal(target.pass, false, "a flat tail does not rescue growth over 10 % from the first reading");
  assert.match(target.measured, /raw floor, for reference: \+15\.0 %/);
  assert.match(target.measured, new RegExp(`from ${plans.full.rssMiddle} calls: \\+1\\.0 %`));
  assert.match(target.measured, /anonymous memory \+0\.4 MiB/);
});

Deno.test("a failed RSS reading leaves the target not measured, never passed", () => {
  const failed = { failed: "server exited (code 1)" };
  const one: RssReadings = { rss: [{ value: 50 * MiB }, failed, failed], anon: [failed, failed, failed] };
  const target = rssTarget(measured({ toolkit: { ...one, runs: [one] } }));
  assert.equal(target.pass, undefined);
  assert.equal(target.measured, "not measured");
});

Deno.test("the table has one RSS row and one anonymous row per reading, labelled with its call count", () => {
  const figures = collectFigures(measured({ toolkit: readings([50, 55, 55], [18, 18, 18]) }));
  const labels = figures.map((f) => f.label);
  for (const calls of [plans.full.rssFirst, plans.full.rssMiddle, plans.full.rssSecond]) {
    assert.ok(labels.includes(`RSS after ${calls} calls`), `RSS row for ${calls}`);
    assert.ok(
      labels.some((l) => l.trim() === `of which anonymous (heap etc.), after ${calls}`),
      `anon row for ${calls}`,
    );
  }
  assert.deepEqual(figures.find((f) => f.key === "rssMiddle")?.cells.toolkit, { value: 55 });
});

Deno.test("with several processes the target names each one's growth beside the median", () => {
  const runs = [[50, 55, 55.5], [51, 55, 55.1], [50, 54, 55.5]].map((mib) => readings(mib, [18, 18, 18]));
  const target = rssTarget(measured({
    toolkit: { rss: [{ value: 50 * MiB }, { value: 55 * MiB }, { value: 55.5 * MiB }], anon: runs[0].anon, runs },
  }));
  assert.equal(target.pass, false);
  assert.match(target.measured, /^\+11\.0 % \(median of 3 processes: \+11\.0 %, \+8\.0 %, \+11\.0 %;/);
});

Deno.test("over several processes the growth is the median of each process's own growth, not of mixed readings", () => {
  // Per process: +11.0 %, +8.0 %, +9.2 % → median +9.2 % (PASS). The medians
  // of the readings (50 → 55.1) would mix processes and give +10.2 %.
  const runs = [[50, 55, 55.5], [51, 55, 55.08], [50, 54, 54.6]].map((mib) => readings(mib, [18, 18, 18]));
  const target = rssTarget(measured({
    toolkit: { rss: [{ value: 50 * MiB }, { value: 55 * MiB }, { value: 55.08 * MiB }], anon: runs[0].anon, runs },
  }));
  assert.equal(target.pass, true);
  assert.match(target.measured, /^\+9\.2 % /);
});

/**
 * Throughput figures of a server whose rounds measured `rates[i]` calls/s and
 * `cpus[i]` µs per call on every pipelined and CPU row (the 2026-07-28 rows
 * only when `modern`); the medians as the phase takes them.
 */
function throughputOf(rates: number[], cpus: number[], modern = true): ThroughputFigures {
  const eras = modern ? ERAS : ERAS.filter((era) => era === "initialize");
  const rounds = rates.map((rate, i) =>
    Object.fromEntries([
      ["sequential", { value: 1 }],
      ["concurrent", { value: 1 }],
      ...eras.flatMap((era) =>
        [undefined, ...plans.full.argumentSizes].flatMap((bytes) => [
          [rowKey("pipelined", era, bytes), { value: rate }],
          [rowKey("cpu", era, bytes), { value: cpus[i] }],
        ])
      ),
    ])
  );
  const cells = Object.fromEntries(Object.keys(rounds[0]).map((key) => [key, medianCell(rounds.map((r) => r[key]))]));
  return { cells, p50: { value: 1 }, p99: { value: 1 }, rounds };
}

Deno.test("the 2026-07-28 rows hold only servers that serve that era, and its target compares with the SDK's rate", () => {
  const run = (modern: number) => {
    const m = {
      ...measured({}),
      tput: { toolkit: throughputOf([modern], [3]), "sdk-lowlevel": throughputOf([50_000], [3], false) },
    };
    m.tput.toolkit.cells.pipelined = { value: 250_000 };
    const figures = collectFigures(m);
    const target = collectTargets(m, figures).find((t) => t.name.includes("2026-07-28 era, ≥ 2.0× the bare SDK"));
    assert.ok(target, "the 2026-07-28 target is always listed");
    return { figures, target };
  };
  const { figures, target } = run(150_000);
  const row = figures.find((f) => f.key === "pipelinedModern");
  assert.equal(valueOf(row?.cells.toolkit), 150_000);
  assert.deepEqual(row?.cells["sdk-lowlevel"], { failed: "n/a" });
  assert.equal(target.pass, true);
  assert.equal(run(100_000).target.pass, true, "exactly 2.0× passes");
  assert.equal(run(99_000).target.pass, false);
});

/** The floor targets of the calls/s and CPU rows (not the cold start) for the toolkit's and the floor's rounds. */
function floorTargets(toolkit: ThroughputFigures, floor: ThroughputFigures) {
  const m = { ...measured({}), tput: { toolkit, "raw-floor": floor } };
  const figures = collectFigures(m);
  const targets = collectTargets(m, figures).filter((t) => /^(pipelined|server CPU).*the raw floor$/.test(t.name));
  return { figures, targets };
}

Deno.test("the floor targets judge every era and argument size: calls/s ≥ 0.95× the floor, CPU ≤ 1.15×", () => {
  const floor = throughputOf([100_000], [4]);
  const { figures, targets } = floorTargets(throughputOf([95_000], [4.6]), floor);
  // Small calls and each argument size, two eras, two targets each.
  assert.equal(targets.length, (1 + plans.full.argumentSizes.length) * 2 * 2);
  assert.equal(valueOf(figures.find((f) => f.key === "cpuModern8192")?.cells.toolkit), 4.6);
  assert.ok(figures.find((f) => f.key === "pipelined1536")?.label.includes("1.5 KiB argument"));
  assert.ok(targets.every((t) => t.pass === true), "exactly 0.95× and 1.15× pass");
  const slower = floorTargets(throughputOf([94_000], [4.6]), floor).targets.filter((t) => t.name.startsWith("pipe"));
  assert.ok(slower.every((t) => t.pass === false));
  const costlier = floorTargets(throughputOf([95_000], [4.7]), floor).targets.filter((t) =>
    t.name.startsWith("server")
  );
  assert.ok(costlier.every((t) => t.pass === false));
});

// The floor's rounds: the machine's load moves the floor's own figures from round to round.
const FLOOR_RATES = [100_000, 200_000, 300_000, 400_000, 500_000];
const FLOOR_CPUS = [5, 4, 3, 2, 1];

Deno.test("a floor row passes on the median of per-round ratios when one disturbed round drags the toolkit's median below", () => {
  // Rounds 1, 2, 4 and 5 at 1.00×; round 3 disturbed for the toolkit alone (0.83× the calls/s, 1.33× the CPU).
  // The medians of the rounds (250,000 against 300,000 calls/s, 4.00 against 3.00 µs) would fail.
  const toolkit = throughputOf([100_000, 200_000, 250_000, 400_000, 500_000], [5, 4, 4, 2, 1]);
  const { targets } = floorTargets(toolkit, throughputOf(FLOOR_RATES, FLOOR_CPUS));
  const speed = targets.filter((t) => t.name.startsWith("pipelined"));
  const cpu = targets.filter((t) => t.name.startsWith("server CPU"));
  assert.ok(speed.every((t) => t.pass === true), speed.map((t) => t.measured).join("\n"));
  assert.ok(cpu.every((t) => t.pass === true), cpu.map((t) => t.measured).join("\n"));
  assert.match(
    speed[0].measured,
    /^1\.00× paired \(median of 5 rounds, range 0\.83–1\.00; medians 250,000 vs 300,000\)$/,
  );
  assert.match(cpu[0].measured, /^1\.00× paired \(median of 5 rounds, range 1\.00–1\.33; medians 4\.00 vs 3\.00\)$/);
});

Deno.test("a floor row fails on the median of per-round ratios although the medians of the rounds pass", () => {
  // Four rounds at 0.90× the calls/s and 1.25× the CPU; the third round fast for the toolkit. The medians of the
  // rounds (360,000 against 300,000 calls/s, 2.50 against 3.00 µs) would pass.
  const toolkit = throughputOf([90_000, 180_000, 400_000, 360_000, 450_000], [6.25, 5, 2, 2.5, 1.25]);
  const { targets } = floorTargets(toolkit, throughputOf(FLOOR_RATES, FLOOR_CPUS));
  const speed = targets.filter((t) => t.name.startsWith("pipelined"));
  const cpu = targets.filter((t) => t.name.startsWith("server CPU"));
  assert.ok(speed.every((t) => t.pass === false), speed.map((t) => t.measured).join("\n"));
  assert.ok(cpu.every((t) => t.pass === false), cpu.map((t) => t.measured).join("\n"));
  assert.match(
    speed[0].measured,
    /^0\.90× paired \(median of 5 rounds, range 0\.90–1\.33; medians 360,000 vs 300,000\)$/,
  );
  assert.match(cpu[0].measured, /^1\.25× paired \(median of 5 rounds, range 0\.67–1\.25; medians 2\.50 vs 3\.00\)$/);
});

Deno.test("a floor row with a failed round is not measured, never passed", () => {
  const toolkit = throughputOf([100_000, 100_000, 100_000], [3, 3, 3]);
  toolkit.rounds[1] = {
    ...toolkit.rounds[1],
    [rowKey("cpu", "2026-07-28", 8192)]: { failed: "server exited (code 1)" },
  };
  const { targets } = floorTargets(toolkit, throughputOf([100_000, 100_000, 100_000], [3, 3, 3]));
  const failed = targets.filter((t) => t.pass !== true);
  assert.deepEqual(failed.map((t) => [t.name, t.measured, t.pass]), [[
    "server CPU per pipelined call, warm, 8 KiB argument, 2026-07-28 era, ≤ 1.15× the raw floor",
    "not measured (server exited (code 1))",
    undefined,
  ]]);
  const { targets: alone } = floorTargets(toolkit, { cells: {}, p50: { value: 1 }, p99: { value: 1 }, rounds: [] });
  assert.ok(alone.every((t) => t.pass === undefined), "without the floor's rounds no row is judged");
});

Deno.test("the bundled server's --health is judged against an empty file; from source it is shown, not judged", () => {
  const m = {
    ...measured({}),
    servers: [...SERVERS, { ...BUNDLED, file: "bundle/toolkit_server.js" }],
    health: { toolkit: { value: 85.6 }, [BUNDLED.name]: { value: 72.9 }, empty: { value: 64.9 } },
  };
  const targets = collectTargets(m, collectFigures(m));
  assert.deepEqual(targets.find((t) => t.name.startsWith("--health, bundled")), {
    name: "--health, bundled (deno task bundle), ≤ 1.3× deno run of an empty file",
    measured: "1.12× (72.9 vs 64.9)",
    pass: true,
  });
  assert.deepEqual(targets.find((t) => t.name.startsWith("--health from source")), {
    name: "--health from source against deno run of an empty file (for reference)",
    measured: "1.32× (85.6 vs 64.9)",
    pass: undefined,
  });
});

Deno.test("the bundled server's cold start is judged against the floor; the start from source is shown, not judged", () => {
  const judge = (bundled: Cell) => {
    const m = {
      ...measured({}),
      servers: [...SERVERS, { ...BUNDLED, file: "bundle/toolkit_server.js" }],
      cold: {
        toolkit: { value: 99.7 },
        [BUNDLED.name]: bundled,
        "raw-floor": { value: 59.8 },
        "sdk-lowlevel": { value: 120 },
      },
    };
    const targets = collectTargets(m, collectFigures(m));
    return (prefix: string) => targets.find((t) => t.name.startsWith(prefix));
  };
  const pass = judge({ value: 79.1 });
  assert.deepEqual(pass("cold start, bundled"), {
    name: "cold start, bundled (deno task bundle), ≤ 1.5× the raw floor",
    measured: "1.32× (79.1 vs 59.8)",
    pass: true,
  });
  assert.deepEqual(pass("cold start from source"), {
    name: "cold start from source against the raw floor (for reference)",
    measured: "1.67× (99.7 vs 59.8)",
    pass: undefined,
  });
  assert.equal(pass("cold start ≤ 1.1× the bare SDK")?.pass, true, "the SDK target is judged as before");
  assert.equal(judge({ value: 90 })("cold start, bundled")?.pass, false);
  const failed = judge({ failed: "Cannot bundle bench/servers/toolkit_server.ts: esbuild not found" });
  assert.deepEqual(failed("cold start, bundled"), {
    name: "cold start, bundled (deno task bundle), ≤ 1.5× the raw floor",
    measured: "not measured (Cannot bundle bench/servers/toolkit_server.ts: esbuild not found)",
    pass: undefined,
  });
});
