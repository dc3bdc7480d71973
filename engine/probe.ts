// Probes of pattern tools: the `_meta` keys of the exchange, the check on what
// a tool's pattern function returned, and the result that answers a probe
// instead of running the handler.

import type { ToolResult } from "../toolkit/result.ts";
import type { Patterns } from "../toolkit/tool.ts";

/**
 * The `_meta` key a client sets to `true` to probe a call instead of running
 * it; the probe's result holds the patterns under the same key.
 *
 * @example Probe a call by hand
 * ```ts
 * import { PROBE_META_KEY } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const params = { name: "write_file", arguments: { path: "a.txt" }, _meta: { [PROBE_META_KEY]: true } };
 * assert.deepEqual(params._meta, { "forge.permission_patterns": true });
 * ```
 */
export const PROBE_META_KEY = "forge.permission_patterns";
/**
 * The `_meta` key of a probe result that holds the patterns the host may approve for good.
 *
 * @example Read the patterns to remember
 * ```ts
 * import { ALWAYS_META_KEY } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const meta: Record<string, unknown> = { "forge.always_patterns": ["write:notes/*"] };
 * assert.deepEqual(meta[ALWAYS_META_KEY], ["write:notes/*"]);
 * ```
 */
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
