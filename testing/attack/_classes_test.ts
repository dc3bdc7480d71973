import assert from "node:assert/strict";
import { classify } from "./_classes.ts";

Deno.test("classify() takes the CWE of what the value aimed at for scope checks, else the check's own", () => {
  assert.deepEqual(classify("canary-leak", { category: "link" }), {
    cwe: "CWE-59",
    owasp: "MCP02:2025 Privilege Escalation via Scope Creep",
  });
  assert.equal(classify("outside-change", { category: "option" }).cwe, "CWE-88");
  assert.equal(classify("outside-change", { category: "generic" }).cwe, "CWE-73");
  assert.equal(classify("network", { category: "path" }).cwe, "CWE-918");
  assert.equal(classify("log-injection", { category: "log" }).owasp, "MCP08:2025 Lack of Audit and Telemetry");
});
