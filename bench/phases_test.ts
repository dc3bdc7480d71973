// test-permissions: --allow-run
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import type { Env } from "./measure.ts";
import { medianCell, rssRuns } from "./phases.ts";
import { plans } from "./plan.ts";
import { SERVERS } from "./servers.ts";

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
