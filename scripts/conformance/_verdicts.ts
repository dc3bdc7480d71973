// How one wire's results read: which scenarios (or single checks) cannot
// apply to a tools-only stdio server, and why. Anything not listed here is
// applicable and must pass. docs/conformance.md carries the same table.

/** A scenario's outcome as the suite recorded it. */
export interface Outcome {
  scenario: string;
  checks: { id: string; status: string; errorMessage?: string }[];
}

/** One scenario's verdict. */
export interface Verdict {
  scenario: string;
  verdict: "pass" | "fail" | "n/a";
  /** Why it is not applicable, or which checks failed; for a pass, its count of checks and each warning with why. */
  note: string;
  /** How many distinct checks of a passing scenario warned (a SHOULD it did not meet): 0 when none. */
  warnings?: number;
}

const NO_RESOURCES = "the toolkit serves tools only: no resources/* methods (-32601)";
const NO_PROMPTS = "the toolkit serves tools only: no prompts/* methods (-32601)";

/** Scenarios that test what a tools-only stdio server does not have. */
export const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "no logging capability: the toolkit's log goes to stderr, logging/setLevel is -32601",
  "tools-call-with-logging": "no logging capability: the toolkit's log goes to stderr, never notifications/message",
  "completion-complete": "no prompts or resource templates, so nothing to complete (completion/complete is -32601)",
  "resources-list": NO_RESOURCES,
  "resources-read-text": NO_RESOURCES,
  "resources-read-binary": NO_RESOURCES,
  "resources-templates-read": NO_RESOURCES,
  "resources-subscribe": NO_RESOURCES,
  "resources-unsubscribe": NO_RESOURCES,
  "sep-2164-resource-not-found": NO_RESOURCES,
  "prompts-list": NO_PROMPTS,
  "prompts-get-simple": NO_PROMPTS,
  "prompts-get-with-args": NO_PROMPTS,
  "prompts-get-embedded-resource": NO_PROMPTS,
  "prompts-get-with-image": NO_PROMPTS,
  "input-required-result-non-tool-request": `it asks through prompts/get; ${NO_PROMPTS}`,
  "http-custom-header-server-validation":
    "x-mcp-header mirrors tool arguments into HTTP headers; a stdio server has no headers to check",
  "dns-rebinding-protection": "HTTP only (Host and Origin headers): it tests the bridge, which refuses foreign ones",
  "http-header-validation": "HTTP only (Mcp-Method, Mcp-Name, MCP-Protocol-Version headers): it tests the bridge",
  "server-sse-polling": "HTTP only (SSE resumption with event ids): the bridge offers no resumable streams",
  "server-sse-multiple-streams": "HTTP only (several SSE streams at once): it tests the bridge",
  "tasks-status-notifications":
    "optional: the toolkit sends no notifications/tasks (clients poll); the scenario has no check",
};

/** Single checks of applicable scenarios that test a missing feature. */
export const NOT_APPLICABLE_CHECKS: Record<string, string> = {
  "caching:sep-2549-prompts-list-caching-hints": NO_PROMPTS,
  "caching:sep-2549-resources-list-caching-hints": NO_RESOURCES,
  "caching:sep-2549-resources-templates-list-caching-hints": NO_RESOURCES,
  "caching:sep-2549-resources-read-caching-hints": NO_RESOURCES,
  "server-stateless:sep-2575-server-sends-prompts-list-changed-on-subscription": NO_PROMPTS,
  "server-stateless:sep-2575-server-declares-prompts-in-discover": NO_PROMPTS,
};

/**
 * Warnings (a SHOULD the suite checks) that the toolkit answers otherwise on
 * purpose, by `scenario:check`. A warning does not fail its scenario, but the
 * run names every one: a warning not listed here says "unexplained".
 */
export const KNOWN_WARNINGS: Record<string, string> = {
  "input-required-result-ignore-extra-params:sep-2322-ignore-unexpected-params":
    "the call sends inputResponses with no requestState (it skips the round that asks): the toolkit takes an answer " +
    "only for a question its sealed state says was asked, so it asks again; the extra keys are ignored",
};

/** Scenarios that wait on work outside this suite's reach; they still count when they fail. */
export const WAITING: Record<string, string> = {};

/** Reads one scenario's outcome into a verdict. */
export function verdictOf(outcome: Outcome): Verdict {
  const { scenario, checks } = outcome;
  const failed = checks.filter((c) =>
    c.status === "FAILURE" && NOT_APPLICABLE_CHECKS[`${scenario}:${c.id}`] === undefined
  );
  const why = NOT_APPLICABLE[scenario];
  if (why !== undefined) return { scenario, verdict: "n/a", note: why };
  if (failed.length === 0) {
    const warned = [...new Set(checks.filter((c) => c.status === "WARNING").map((c) => c.id))];
    const warnings = warned.map((id) => `; warning ${id}: ${KNOWN_WARNINGS[`${scenario}:${id}`] ?? "unexplained"}`);
    return { scenario, verdict: "pass", note: `${checks.length} checks${warnings.join("")}`, warnings: warned.length };
  }
  const ids = [...new Set(failed.map((c) => c.id))].join(", ");
  const waiting = WAITING[scenario];
  return { scenario, verdict: "fail", note: waiting === undefined ? ids : `${ids} — ${waiting}` };
}
