// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env}
// Findings are reproducible: shrunk to the hostile argument alone, replayed
// on a fresh server with fresh canaries, printed as a test that fails while
// the weakness is there and passes on a sound server.
import assert from "node:assert/strict";
import { join } from "node:path";
import { attack } from "./attack.ts";
import { findingTestSource } from "./finding_test_source.ts";
import { inMemoryTarget } from "./in_memory_target.ts";
import { replay } from "./replay.ts";
import * as weak from "./testdata/weak_servers.ts";

async function root(): Promise<{ root: string; remove(): Promise<void> }> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "attack-replay-" }));
  const dir = join(base, "data");
  await Deno.mkdir(dir);
  await Deno.writeTextFile(join(dir, "hello.txt"), "hello");
  return { root: dir, remove: () => Deno.remove(base, { recursive: true }) };
}

Deno.test("a finding is replayed alone, shrunk to its hostile argument, and printed as a test that replays it", async () => {
  const t = await root();
  const target = inMemoryTarget(() => weak.jailForgetsDotDot(t.root), { scope: { read: [t.root] } });
  const report = await attack(target, { seed: 5, eras: ["2025-11-25"], protocol: false, shrinkReplays: 60 });
  const finding = report.findings.find((f) => f.check === "canary-leak" && f.case === "traversal to the canary");
  assert.ok(finding);
  assert.equal(finding.reproduced, "alone");
  assert.equal(finding.transcript.era, "2025-11-25");
  assert.equal(finding.transcript.steps.length, 1);
  const line = JSON.parse(finding.transcript.steps[0].line);
  assert.deepEqual(line.params, { name: "read_file", arguments: { path: "@@up@@@@canary_file@@" } });

  const again = await replay(target, finding.transcript);
  assert.ok(again.some((f) => f.check === "canary-leak"), "the transcript shows it on a fresh server");
  const sound = inMemoryTarget(() => weak.soundJail(t.root), { scope: { read: [t.root] } });
  assert.deepEqual(await replay(sound, finding.transcript), [], "and nothing once the jail is sound");

  const source = findingTestSource(finding);
  assert.match(source, /^\/\/ the canary secret came back on stdout\. CWE-22, MCP02:2025/);
  assert.match(source, /Deno\.test\("canary-leak: read_file path, traversal to the canary \(2025-11-25, seed 5\)"/);
  assert.match(source, /const findings = await replay\(target, \{\n {4}era: "2025-11-25",/);
  assert.ok(source.includes(`{ line: '${finding.transcript.steps[0].line}' }`), source);
  await t.remove();
});
