import type { McpClient } from "./client.ts";
import { ALWAYS_META_KEY, PROBE_META_KEY } from "../engine/probe.ts";

/** What a probe returned. */
export interface ProbeResult {
  /** The call's permission patterns (`[]` for a tool without patterns). */
  patterns: string[];
  /** Patterns the host may approve for good, when the tool gives them. */
  always: string[] | undefined;
  /** True when the probe itself was refused (`isError`), e.g. a missing argument. */
  isError: boolean;
}

/**
 * Probes a tool call: sends `tools/call` with `_meta["forge.permission_patterns"]: true`
 * and reads the patterns from the result's `_meta`. The tool's handler does not run.
 *
 * @param client A connected SDK client.
 * @param name The tool.
 * @param args The arguments the real call would have.
 * @returns The patterns.
 * @throws {Error} When the result carries no patterns (the server ignored the probe).
 *
 * @example Probe a write
 * ```ts ignore
 * import { probe } from "@forge/toolkit/testing";
 *
 * const { patterns } = await probe(client, "write_file", { path: "notes.txt", content: "x" });
 * // patterns: ["write:notes.txt"]
 * ```
 */
export async function probe(client: McpClient, name: string, args: Record<string, unknown> = {}): Promise<ProbeResult> {
  const result = await client.callTool({ name, arguments: args, _meta: { [PROBE_META_KEY]: true } });
  const meta = result._meta as Record<string, unknown> | undefined;
  const patterns = meta?.[PROBE_META_KEY];
  if (result.isError === true) return { patterns: [], always: undefined, isError: true };
  if (!Array.isArray(patterns)) throw new Error(`Cannot read the patterns of tool "${name}": the result has none`);
  const always = meta?.[ALWAYS_META_KEY];
  return {
    patterns: patterns as string[],
    always: Array.isArray(always) ? always as string[] : undefined,
    isError: false,
  };
}
