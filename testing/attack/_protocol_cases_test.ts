import assert from "node:assert/strict";
import { fill } from "./_fill.ts";
import { beforeInitialize, protocolCases, type ProtocolContext } from "./_protocol_cases.ts";

function context(era: ProtocolContext["era"], large = false): ProtocolContext {
  let [id, tag] = [100, 0];
  return {
    era,
    large,
    maxMessageBytes: 64 << 20,
    tool: { name: "write", hostile: '{"path":"@@up@@@@canary_file@@"}' },
    tools: [{ name: "write", args: '{"path":"a"}' }, { name: "list", args: "{}" }],
    nextId: () => String(++id),
    nextTag: () => `t${++tag}`,
  };
}

Deno.test("protocolCases() holds ids JSON cannot hold, frames, batches, case variants, floods and slow reading", () => {
  const cases = protocolCases(context("2026-07-28"));
  const titles = cases.map((c) => c.title);
  for (
    const title of [
      "id 2^53+1",
      "frame nested 100 000 deep",
      "frame with invalid UTF-8",
      "batch of two",
      'method "TOOLS/CALL"',
      "2000 notifications at once",
      "500 requests while stdout is not read",
      "calls while stderr is not read",
      "envelope of an unknown version",
    ]
  ) {
    assert.ok(titles.includes(title), title);
  }
  assert.equal(new Set(cases.map((c) => c.tag)).size, cases.length, "tags are unique");
  const broken = new Set(["frame cut short", "frame not JSON"]);
  for (const c of cases.filter((c) => !broken.has(c.title))) {
    for (const step of c.steps.filter((s) => !s.line.includes("@@bytes"))) {
      JSON.parse(fill(step.line.replaceAll("@@n@@", "1"), { up: "../", canary_file: "/c" }, 2));
    }
  }

  const variant = cases.find((c) => c.title === 'method "TOOLS/CALL"')!;
  assert.equal(variant.inert, true);
  assert.match(variant.refuse!, /case/);
  assert.ok(!titles.includes("batch of 1025") && !titles.includes("frame one byte over the limit"));
  const large = protocolCases(context("2025-11-25", true)).map((c) => c.title);
  assert.ok(large.includes("batch of 1025") && large.includes("frame one byte over the limit"));
  assert.ok(!large.includes("envelope of an unknown version"), "only the 2026-07-28 era has an envelope");
});

Deno.test("beforeInitialize() is a call that must run nothing, in the initialize era only", () => {
  assert.equal(beforeInitialize(context("2026-07-28")), undefined);
  const c = beforeInitialize(context("2025-11-25"))!;
  assert.deepEqual([c.inert, c.refuse, c.expect], [true, "it came before initialize", ["101"]]);
});
