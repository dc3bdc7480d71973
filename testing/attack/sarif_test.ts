import assert from "node:assert/strict";
import type { AttackFinding, AttackReport } from "./report.ts";
import { toSarif } from "./sarif.ts";

const finding: AttackFinding = {
  check: "canary-leak",
  what: "the canary secret came back on stdout",
  era: "2026-07-28",
  seed: 9,
  case: "traversal to the canary",
  category: "path",
  tool: "read_file",
  argument: "path",
  passes: true,
  cwe: "CWE-22",
  owasp: "MCP02:2025 Privilege Escalation via Scope Creep",
  transcript: { era: "2026-07-28", title: "traversal to the canary", steps: [{ line: "{}" }], expect: ["7"] },
  reproduced: "alone",
};

const report: AttackReport = {
  target: "files",
  seed: 9,
  eras: ["2026-07-28"],
  corpus: "default",
  tools: [],
  cases: 10,
  ms: 1,
  findings: [finding],
  known: [{
    ...finding,
    check: "host-path",
    cwe: "CWE-209",
    owasp: "MCP10:2025 Context Injection & Over-Sharing",
    known: "fix in #3",
  }],
  stale: [],
  notes: [],
};

Deno.test("toSarif() gives each finding a rule tagged with its CWE and OWASP MCP class, and known ones a suppression", () => {
  const log = toSarif(report) as { version: string; runs: Record<string, unknown>[] };
  assert.equal(log.version, "2.1.0");
  const run = log.runs[0] as {
    tool: { driver: { name: string; rules: { id: string; properties: { tags: string[] } }[] } };
    results: Record<string, unknown>[];
    invocations: { properties: Record<string, unknown> }[];
  };
  assert.equal(run.tool.driver.name, "forge-attack");
  assert.deepEqual(run.tool.driver.rules.map((r) => [r.id, r.properties.tags]), [
    ["canary-leak/CWE-22", ["security", "external/cwe/cwe-22", "owasp-mcp-top-10/MCP02"]],
    ["host-path/CWE-209", ["security", "external/cwe/cwe-209", "owasp-mcp-top-10/MCP10"]],
  ]);
  const [open, known] = run.results as {
    ruleId: string;
    message: { text: string };
    properties: Record<string, unknown>;
    suppressions?: unknown[];
  }[];
  assert.equal(open.ruleId, "canary-leak/CWE-22");
  assert.match(open.message.text, /traversal to the canary", 2026-07-28, seed 9/);
  assert.equal(open.properties.owasp, "MCP02:2025 Privilege Escalation via Scope Creep");
  assert.deepEqual(open.properties.transcript, finding.transcript);
  assert.equal(open.suppressions, undefined);
  assert.deepEqual(known.suppressions, [{ kind: "external", justification: "fix in #3" }]);
  assert.equal(run.invocations[0].properties.seed, 9);
});
