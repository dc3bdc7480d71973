import assert from "node:assert/strict";
import type { RssReadings } from "./measure.ts";
import type { RssFigures } from "./phases.ts";
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
