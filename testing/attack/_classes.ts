// The CWE and the OWASP MCP Top 10 (2025) class of a finding, from what was
// checked and what the hostile value aimed at. The Top 10 has no class for
// availability: a server that crafted input stops, stalls or bloats is filed
// under MCP05 (the input, not the author, decided what the server did).
import type { AttackCase } from "./_case.ts";
import type { AttackCheck } from "./_judge.ts";

/** OWASP MCP Top 10 (2025) class names. */
export const OWASP_MCP: Readonly<Record<string, string>> = Object.freeze({
  MCP02: "MCP02:2025 Privilege Escalation via Scope Creep",
  MCP05: "MCP05:2025 Command Injection & Execution",
  MCP07: "MCP07:2025 Insufficient Authentication & Authorization",
  MCP08: "MCP08:2025 Lack of Audit and Telemetry",
  MCP10: "MCP10:2025 Context Injection & Over-Sharing",
});

const BY_CATEGORY: Record<string, [string, string]> = {
  path: ["CWE-22", "MCP02"],
  link: ["CWE-59", "MCP02"],
  url: ["CWE-918", "MCP05"],
  sql: ["CWE-89", "MCP05"],
  option: ["CWE-88", "MCP05"],
  command: ["CWE-78", "MCP05"],
};

const BY_CHECK: Record<AttackCheck, [string, string]> = {
  "canary-leak": ["CWE-200", "MCP02"],
  "network": ["CWE-918", "MCP05"],
  "outside-change": ["CWE-73", "MCP02"],
  "config-ran": ["CWE-15", "MCP05"],
  "side-effect": ["CWE-862", "MCP07"],
  "log-injection": ["CWE-117", "MCP08"],
  "no-reply": ["CWE-400", "MCP05"],
  "unexpected-reply": ["CWE-20", "MCP10"],
  "not-json": ["CWE-116", "MCP10"],
  "dead": ["CWE-703", "MCP05"],
  "memory": ["CWE-770", "MCP05"],
  "host-path": ["CWE-209", "MCP10"],
  "served-variant": ["CWE-178", "MCP07"],
  "served-invalid": ["CWE-20", "MCP07"],
  "prototype-pollution": ["CWE-1321", "MCP05"],
  "exit": ["CWE-404", "MCP05"],
};

/** The CWE id and OWASP MCP class of a finding. */
export function classify(check: AttackCheck, c: Pick<AttackCase, "category">): { cwe: string; owasp: string } {
  const scoped = check === "canary-leak" || check === "outside-change";
  const [cwe, mcp] = (scoped && BY_CATEGORY[c.category]) || BY_CHECK[check];
  return { cwe, owasp: OWASP_MCP[mcp] };
}
