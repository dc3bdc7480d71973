// One attack case: the lines to send (templates with placeholders), the
// replies it must get, and what it may not do. Cases are data, so a finding
// can be replayed alone and printed as a test.
import type { AttackCategory } from "./corpus.ts";

/** The protocol versions the kit speaks; `2026-07-28` is stateless, the others start with `initialize`. */
export type AttackEra = "2026-07-28" | "2025-11-25" | "2025-06-18" | "2025-03-26" | "2024-11-05";

/**
 * One line of a transcript: JSON-RPC text with `@@name@@` placeholders (see
 * {@linkcode AttackValue}), sent `repeat` times; `@@n@@` counts from `from`,
 * and `@@bytes:ff fe@@` stands for raw bytes no UTF-8 text can hold.
 *
 * @example A request sent three times with ids 1, 2 and 3
 * ```ts
 * import type { AttackStep } from "@forge/toolkit/testing";
 *
 * const step: AttackStep = { line: '{"jsonrpc":"2.0","id":@@n@@,"method":"ping"}', repeat: 3, from: 1 };
 * ```
 */
export interface AttackStep {
  /** The line, without its newline. */
  line: string;
  /**
   * How many times to send it.
   * @default {1}
   */
  repeat?: number;
  /**
   * What `@@n@@` is the first time.
   * @default {0}
   */
  from?: number;
}

/**
 * What a finding needs to happen again: the era, the lines after the
 * handshake, the ids they must get answers to, and what they must not do.
 * `replay()` runs it; a finding prints it as a ready-to-paste test.
 *
 * @example A transcript of one call
 * ```ts
 * import type { AttackTranscript } from "@forge/toolkit/testing";
 *
 * const transcript: AttackTranscript = {
 *   era: "2026-07-28",
 *   title: "traversal to the canary",
 *   steps: [{ line: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"@@up@@@@canary_file@@"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' }],
 *   expect: ["7"],
 * };
 * ```
 */
export interface AttackTranscript {
  /** The protocol era; an initialize-based one gets its handshake first. */
  era: AttackEra;
  /** What the lines do. */
  title: string;
  /** The lines. */
  steps: AttackStep[];
  /** Ids each to be answered once; `a|b` accepts either. */
  expect: string[];
  /** Ids of a batch: answered either all in one array, or by one error with a null id. */
  batch?: string[];
  /** A stream not read while the lines are sent. */
  pause?: "stdout" | "stderr";
  /** Nothing may change and no listener hit happen at all (probes, calls before initialize). */
  inert?: boolean;
  /**
   * Why the request must be refused: a `result` that is not `isError` is then a finding. A reason that says
   * "case" marks a variant of a real method's name.
   */
  refuse?: string;
}

/** A case: a transcript (its era is the run's) with where it came from. */
export interface AttackCase extends Omit<AttackTranscript, "era"> {
  /** Unique in a run; `@@tag@@` in its lines, so a listener hit names its case. */
  tag: string;
  kind: "argument" | "probe" | "protocol";
  category: AttackCategory | "protocol";
  tool?: string;
  argument?: string;
  /** Whether the arguments pass the tool's schema. */
  passes?: boolean;
  /** For a tool call: what it was built from, so a finding can be shrunk. */
  call?: { tool: string; args: string; argument?: string; value?: string; probe: boolean };
}

export const PROBE_KEY = "forge.permission_patterns";
const VERSION_KEY = "io.modelcontextprotocol/protocolVersion";
const CAPS_KEY = "io.modelcontextprotocol/clientCapabilities";

/** The `_meta` members a request of `era` carries (without braces). */
export function envelope(era: AttackEra): string {
  return era === "2026-07-28" ? `"${VERSION_KEY}":"2026-07-28","${CAPS_KEY}":{}` : "";
}

/** A request line; `params` is JSON text of an object without `_meta`, `meta` extra `_meta` members. */
export function request(era: AttackEra, id: string, method: string, params = "{}", meta = ""): string {
  const members = [envelope(era), meta].filter(Boolean).join(",");
  const body = params.slice(1, -1).trim();
  const withMeta = members ? `{${body}${body ? "," : ""}"_meta":{${members}}}` : params;
  return `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${withMeta}}`;
}

/** A `tools/call` line. */
export function callLine(era: AttackEra, id: string, tool: string, args: string, probe = false): string {
  return request(
    era,
    id,
    "tools/call",
    `{"name":${JSON.stringify(tool)},"arguments":${args}}`,
    probe ? `"${PROBE_KEY}":true` : "",
  );
}

/** The lines that open a session of `era`: `initialize` and `notifications/initialized`, or none. */
export function handshake(era: AttackEra): AttackStep[] {
  if (era === "2026-07-28") return [];
  const params = {
    protocolVersion: era,
    capabilities: {},
    clientInfo: { name: "forge-attack", version: "0.0.0" },
  };
  return [
    { line: `{"jsonrpc":"2.0","id":"init","method":"initialize","params":${JSON.stringify(params)}}` },
    { line: '{"jsonrpc":"2.0","method":"notifications/initialized"}' },
  ];
}
