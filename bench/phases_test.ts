// test-permissions: --allow-run
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Env } from "./measure.ts";
import {
  ERAS,
  medianCell,
  pipelinedParts,
  roundOrder,
  rowKey,
  rowsSideBySide,
  rssRuns,
  type Run,
  throughputRounds,
} from "./phases.ts";
import { start } from "./measure.ts";
import { plans } from "./plan.ts";
import { BUNDLED, SERVERS } from "./servers.ts";

const env: Env = { deno: Deno.execPath(), repo: fileURLToPath(new URL("..", import.meta.url)), timeoutMs: 10_000 };

Deno.test("medianCell() takes the median of measured cells and passes the first failure on", () => {
  assert.equal((medianCell([{ value: 3 }, { value: 1 }, { value: 2 }]) as { value: number }).value, 2);
  assert.deepEqual(medianCell([{ value: 3 }, { failed: "no answer" }]), { failed: "no answer" });
  assert.deepEqual(medianCell([]), { failed: "not measured" });
});

Deno.test({
  name: "rssRuns() reads every point on each of its fresh processes and reports the median of each point",
  permissions: { run: true },
  fn: async () => {
    const floor = SERVERS.filter((s) => s.name === "raw-floor");
    const plan = { ...plans.smoke, rssFirst: 50, rssMiddle: 100, rssSecond: 150, rssProcesses: 3 };
    const out = (await rssRuns(env, floor, plan))["raw-floor"];
    assert.equal(out.runs.length, 3);
    for (const run of out.runs) {
      assert.equal(run.rss.length, 3);
      for (const cell of run.rss) assert.ok("value" in cell && cell.value > 1024, JSON.stringify(cell));
    }
    for (let i = 0; i < 3; i++) {
      const values = out.runs.map((run) => (run.rss[i] as { value: number }).value).sort((a, b) => a - b);
      assert.equal((out.rss[i] as { value: number }).value, values[1], `median at point ${i}`);
    }
  },
});

Deno.test("roundOrder() keeps the toolkit, its bundle and the floor side by side and reverses every other round", () => {
  const names = (round: number) =>
    roundOrder([...SERVERS, { ...BUNDLED, file: "" }], round).map((s) => s.name).join(" ");
  assert.equal(
    names(0),
    "toolkit toolkit-bundled raw-floor sdk-lowlevel sdk-mcpserver cat-loop sdk-on-toolkit",
  );
  assert.equal(
    names(1),
    "sdk-on-toolkit cat-loop sdk-mcpserver sdk-lowlevel raw-floor toolkit-bundled toolkit",
  );
  assert.equal(names(2), names(0));
  const pair = SERVERS.filter((s) => s.name === "raw-floor" || s.name === "toolkit");
  assert.deepEqual([0, 1, 2, 3].map((round) => roundOrder(pair, round)[0].name), [
    "toolkit",
    "raw-floor",
    "toolkit",
    "raw-floor",
  ]);
});

Deno.test({
  name: "throughputRounds() keeps each round's cells per server, the same rows in every round, and their medians",
  permissions: { run: true },
  fn: async () => {
    const servers = SERVERS.filter((s) => s.name === "raw-floor" || s.name === "cat-loop");
    const plan = { ...plans.smoke, rounds: 3, argumentSizes: [1536] };
    const out = await throughputRounds(env, servers, plan);
    const keys = [
      "sequential",
      "concurrent",
      ...ERAS.flatMap((era) =>
        [undefined, 1536].flatMap((bytes) => [rowKey("pipelined", era, bytes), rowKey("cpu", era, bytes)])
      ),
    ].sort();
    for (const spec of servers) {
      const { rounds, cells } = out[spec.name];
      assert.equal(rounds.length, 3);
      for (const round of rounds) {
        assert.deepEqual(Object.keys(round).sort(), keys);
        for (const cell of Object.values(round)) assert.ok("value" in cell && cell.value > 0, JSON.stringify(cell));
      }
      const rates = rounds.map((r) => (r.pipelinedModern1536 as { value: number }).value).sort((a, b) => a - b);
      assert.equal((cells.pipelinedModern1536 as { value: number }).value, rates[1]);
    }
  },
});

Deno.test({
  name:
    "rowsSideBySide() measures each row on every live process before the next row, every other row in reverse, and a failed row closes its server",
  permissions: { run: true },
  fn: async () => {
    const specs = SERVERS.filter((s) => s.name === "raw-floor" || s.name === "cat-loop");
    const runs: Run[] = specs.map((spec) => ({ spec, cells: {}, samples: [] }));
    const seen: string[] = [];
    const pids = new Set<number>();
    const row = (label: string, fail?: string) => (server: { pid: number }, run: Run) => {
      seen.push(`${label}:${run.spec.name}`);
      pids.add(server.pid);
      if (run.spec.name === fail) return Promise.reject(new Error(`${label} failed`));
      run.cells[label] = { value: 1 };
      return Promise.resolve();
    };
    await rowsSideBySide(runs, (spec) => start(env, spec), [row("a"), row("b", "cat-loop"), row("c")]);
    assert.deepEqual(seen, ["a:raw-floor", "a:cat-loop", "b:cat-loop", "b:raw-floor", "c:raw-floor"]);
    assert.equal(pids.size, 2, "one process per server for every row");
    assert.deepEqual(Object.keys(runs[0].cells), ["a", "b", "c"]);
    assert.deepEqual(Object.keys(runs[1].cells), ["a"]);
    assert.equal((runs[1].failed as Error).message, "b failed");
  },
});

Deno.test("pipelinedParts() splits a row's calls into parts, warms up in the first only, and judges the whole: calls over summed time, CPU over calls", async () => {
  const asked: { warmup: number; calls: number }[] = [];
  // Three parts of 10, 10 and 9 calls: at 10, 20 and 9 calls/s with 1, 2 and 3 µs of CPU per call.
  const figures = [[10, 1], [20, 2], [9, 3]];
  const measure = (
    _s: unknown,
    _e: unknown,
    _era: unknown,
    text: string,
    counts: { warmup: number; calls: number },
  ) => {
    assert.equal(text.length, 1536);
    asked.push({ warmup: counts.warmup, calls: counts.calls });
    const [rate, cpu] = figures[asked.length - 1];
    return Promise.resolve({ pipelinedPerSec: { value: rate }, cpuUsPerCall: { value: cpu } });
  };
  const rows = pipelinedParts(env, { parts: 3, window: 64 }, "initialize", 1536, 500, 29, measure as never);
  assert.equal(rows.length, 3);
  const run: Run = { spec: SERVERS[0], cells: {}, samples: [] };
  for (const row of rows) await row(undefined as never, run);
  assert.deepEqual(asked, [{ warmup: 500, calls: 10 }, { warmup: 0, calls: 10 }, { warmup: 0, calls: 9 }]);
  // 29 calls in 1 + 0.5 + 1 s; (10·1 + 10·2 + 9·3) / 29 µs.
  assert.equal((run.cells.pipelined1536 as { value: number }).value, 29 / 2.5);
  assert.equal((run.cells.cpu1536 as { value: number }).value, 57 / 29);
  // A part that fails makes the row's cells its failure.
  const failing = pipelinedParts(
    env,
    { parts: 2, window: 64 },
    "2026-07-28",
    undefined,
    0,
    4,
    () =>
      Promise.resolve({ pipelinedPerSec: { failed: "3 wrong answers" }, cpuUsPerCall: { failed: "3 wrong answers" } }),
  );
  const broken: Run = { spec: SERVERS[0], cells: {}, samples: [] };
  for (const row of failing) await row(undefined as never, broken);
  assert.deepEqual(broken.cells, {
    pipelinedModern: { failed: "3 wrong answers" },
    cpuModern: { failed: "3 wrong answers" },
  });
});
