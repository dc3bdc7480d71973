// Probes of pattern tools: the `_meta` keys of the exchange, the check on what
// a tool's pattern function returned, and the result that answers a probe
// instead of running the handler.

import type { ToolResult } from "./result.ts";
import type { Patterns } from "./tool.ts";

/** The `_meta` key a client sets to `true` to probe a call instead of running it. */
export const PROBE_META_KEY = "forge.permission_patterns";
/** The `_meta` key of a probe result that holds the patterns the host may approve for good. */
export const ALWAYS_META_KEY = "forge.always_patterns";

/** A copy of what a pattern function returned, once it has the right shape. */
export function checkPatterns(value: unknown): Patterns {
  const p = value as Patterns | null;
  const ok = (list: unknown) => Array.isArray(list) && list.every((s) => typeof s === "string" && s.length > 0);
  if (p === null || typeof p !== "object" || !ok(p.patterns) || (p.always !== undefined && !ok(p.always))) {
    throw new TypeError("Cannot use the permission patterns: expected { patterns: string[], always?: string[] }");
  }
  return { patterns: [...p.patterns], ...(p.always ? { always: [...p.always] } : {}) };
}

/** The answer to a probe: the patterns in `_meta`, and a line saying nothing ran. */
export function probeResult(patterns: Patterns | undefined): ToolResult {
  const list = patterns?.patterns ?? [];
  const meta: Record<string, unknown> = { [PROBE_META_KEY]: list };
  if (patterns?.always) meta[ALWAYS_META_KEY] = patterns.always;
  const summary = list.length === 0 ? "no permission patterns" : `permission patterns: ${list.join(", ")}`;
  return { content: [{ type: "text", text: `Probe only, not run: ${summary}` }], _meta: meta };
}
