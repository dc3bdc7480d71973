import assert, { AssertionError } from "node:assert/strict";
import { assertNoFindings } from "./assert_no_findings.ts";
import type { AttackFinding, AttackReport } from "./report.ts";

const base: AttackReport = {
  target: "t",
  seed: 1,
  eras: ["2025-11-25"],
  corpus: "default",
  tools: [],
  cases: 3,
  ms: 5,
  findings: [],
  known: [],
  stale: [],
  notes: [],
};

const finding: AttackFinding = {
  check: "served-variant",
  what: 'id "8" got a result although the name differs from tools/list in case or spacing',
  era: "2025-11-25",
  seed: 1,
  case: 'method "TOOLS/LIST"',
  category: "protocol",
  cwe: "CWE-178",
  owasp: "MCP07:2025 Insufficient Authentication & Authorization",
  transcript: {
    era: "2025-11-25",
    title: 'method "TOOLS/LIST"',
    steps: [{ line: '{"jsonrpc":"2.0","id":8,"method":"TOOLS/LIST","params":{}}' }],
    expect: ["8"],
    refuse: "the name differs from tools/list in case or spacing",
  },
  reproduced: "alone",
};

Deno.test("assertNoFindings() passes a report whose findings are all known", () => {
  assertNoFindings({ ...base, known: [{ ...finding, known: "accepted" }] });
});

Deno.test("assertNoFindings() fails with the table, then each finding as a test to paste", () => {
  let message = "";
  try {
    assertNoFindings({ ...base, findings: [finding] });
  } catch (err) {
    assert.ok(err instanceof AssertionError);
    message = err.message;
  }
  assert.match(message, /1 findings:\n\| # \| era \| case \| tool/);
  assert.match(message, /\| 1 \| 2025-11-25 \| method "TOOLS\/LIST" \| — \| — \| served-variant \|/);
  assert.match(message, /Deno\.test\("served-variant: method \\"TOOLS\/LIST\\" \(2025-11-25, seed 1\)"/);
  assert.match(message, /refuse: "the name differs from tools\/list in case or spacing"/);
});
