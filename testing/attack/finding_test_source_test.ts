import assert from "node:assert/strict";
import { findingTestSource } from "./finding_test_source.ts";
import type { AttackFinding } from "./report.ts";

Deno.test("findingTestSource() prints a test whose lines paste as TypeScript, quoting what needs it", () => {
  const finding: AttackFinding = {
    check: "no-reply",
    what: 'no reply to id "9007199254740993" within 100 ms',
    era: "2025-11-25",
    seed: 4,
    case: "id 2^53+1",
    category: "protocol",
    cwe: "CWE-400",
    owasp: "MCP05:2025 Command Injection & Execution",
    transcript: {
      era: "2025-11-25",
      title: "id 2^53+1",
      steps: [
        { line: '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list","params":{}}' },
        { line: "it's \\ odd", repeat: 3, from: 1 },
      ],
      expect: ["9007199254740993"],
    },
    reproduced: "in sequence",
  };
  const source = findingTestSource(finding);
  assert.match(source, /^\/\/ no reply to id "9007199254740993" within 100 ms\. CWE-400, .*reproduced: in sequence\./);
  assert.match(source, /\/\/ Wire \(after initialize\): \{"jsonrpc"/);
  assert.ok(source.includes(`{ line: '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list","params":{}}' },`));
  assert.ok(source.includes(`{ line: "it's \\\\ odd", repeat: 3, from: 1 },`), source);
  assert.match(source, /expect: \["9007199254740993"\]/);
});
