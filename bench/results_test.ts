import assert from "node:assert/strict";
import type { RssReadings } from "./measure.ts";
import { ERAS, type RssFigures, sizedKey } from "./phases.ts";
import { plans } from "./plan.ts";
import { collectFigures, collectTargets, type Measured } from "./results.ts";
import { SERVERS } from "./servers.ts";

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

Deno.test("the 2026-07-28 rows hold only servers that serve that era, and its target compares with the SDK's rate", () => {
  const cells = (pipelined: number, modern?: number) => ({
    sequential: { value: 1 },
    p50: { value: 1 },
    p99: { value: 1 },
    pipelined: { value: pipelined },
    cpu: { value: 1 },
    concurrent: { value: 1 },
    ...(modern === undefined ? {} : { pipelinedModern: { value: modern }, cpuModern: { value: 3 } }),
    sized: {},
  });
  const run = (modern: number) => {
    const m = { ...measured({}), tput: { toolkit: cells(250_000, modern), "sdk-lowlevel": cells(50_000) } };
    const figures = collectFigures(m);
    const target = collectTargets(m, figures).find((t) => t.name.includes("2026-07-28"));
    assert.ok(target, "the 2026-07-28 target is always listed");
    return { figures, target };
  };
  const { figures, target } = run(150_000);
  const row = figures.find((f) => f.key === "pipelinedModern");
  assert.deepEqual(row?.cells.toolkit, { value: 150_000 });
  assert.deepEqual(row?.cells["sdk-lowlevel"], { failed: "n/a" });
  assert.equal(target.pass, true);
  assert.equal(run(100_000).target.pass, true, "exactly 2.0× passes");
  assert.equal(run(99_000).target.pass, false);
});

Deno.test("the floor targets judge every era and argument size: calls/s ≥ 0.95× the floor, CPU ≤ 1.15×", () => {
  const sized = (rate: number, cpu: number) =>
    Object.fromEntries(
      ERAS.flatMap((era) =>
        plans.full.argumentSizes.map((
          bytes,
        ) => [sizedKey(era, bytes), { pipelined: { value: rate }, cpu: { value: cpu } }])
      ),
    );
  const cells = (rate: number, cpu: number) => ({
    sequential: { value: 1 },
    p50: { value: 1 },
    p99: { value: 1 },
    pipelined: { value: rate },
    cpu: { value: cpu },
    concurrent: { value: 1 },
    pipelinedModern: { value: rate },
    cpuModern: { value: cpu },
    sized: sized(rate, cpu),
  });
  const judge = (rate: number, cpu: number) => {
    const m = { ...measured({}), tput: { toolkit: cells(rate, cpu), "raw-floor": cells(100_000, 4) } };
    const figures = collectFigures(m);
    return { figures, targets: collectTargets(m, figures).filter((t) => t.name.endsWith("the raw floor")) };
  };
  const { figures, targets } = judge(95_000, 4.6);
  // Small calls and each argument size, two eras, two targets each; and the cold start.
  assert.equal(targets.length, (1 + plans.full.argumentSizes.length) * 2 * 2 + 1);
  assert.deepEqual(figures.find((f) => f.key === "cpuModern8192")?.cells.toolkit, { value: 4.6 });
  assert.ok(figures.find((f) => f.key === "pipelined1536")?.label.includes("1.5 KiB argument"));
  const speed = targets.filter((t) => !t.name.startsWith("cold start"));
  assert.ok(speed.every((t) => t.pass === true), "exactly 0.95× and 1.15× pass");
  const slower = judge(94_000, 4.6).targets.filter((t) => t.name.startsWith("pipelined"));
  assert.ok(slower.every((t) => t.pass === false));
  const costlier = judge(95_000, 4.7).targets.filter((t) => t.name.startsWith("server CPU"));
  assert.ok(costlier.every((t) => t.pass === false));
  const cold = targets.find((t) => t.name.startsWith("cold start"));
  assert.equal(cold?.pass, undefined, "a cold start not measured is not passed");
});
