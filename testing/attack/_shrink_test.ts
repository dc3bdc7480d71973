// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
import assert from "node:assert/strict";
import { attack } from "./attack.ts";
import { inMemoryTarget } from "./in_memory_target.ts";
import * as weak from "./testdata/weak_servers.ts";

Deno.test("huge repeated values shrink by 16 while the finding holds", async () => {
  const target = inMemoryTarget(() => weak.logsItsArgument(), {});
  const report = await attack(target, {
    seed: 5,
    eras: ["2026-07-28"],
    protocol: false,
    shrinkReplays: 60,
    values: [{ name: "huge then forged", category: "log", json: '"@@repeat:65536:A@@\\n@@marker@@ x"' }],
  });
  const finding = report.findings.find((f) => f.case === "huge then forged");
  assert.ok(finding);
  assert.match(finding.transcript.steps[0].line, /@@repeat:4096:A@@/);
});
