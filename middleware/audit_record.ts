/**
 * How an audited call ended: `ok`; `isError` (a domain refusal, including a
 * refusal by a later middleware or a declined confirmation); `error` (a
 * failure, detail on stderr); `timeout`; `aborted` (cancelled or shut down);
 * after these two, a handler that ignores its signal may run on: an
 * {@linkcode AuditLate} record says how it ended; `probe` (nothing ran); `input_required` (2026-07-28: the call paused to ask
 * its client, which retries it as a new call).
 */
export type AuditOutcome = "ok" | "isError" | "error" | "timeout" | "aborted" | "probe" | "input_required";

/** What every record starts with: its place in the hash chain. */
export interface AuditLink {
  /** The record's number: one more than the record before it, 0 for the first. */
  seq: number;
  /** sha256 (hex) of the previous record's line (its UTF-8 bytes, without the newline); 64 zeros for seq 0. */
  prev: string;
  /** When the record was made, ISO 8601 UTC. */
  time: string;
}

/** Who made the call and what it was approved for: shared by intents and probes. */
export interface AuditCall {
  /** The server's name. */
  server: string;
  /** The tool. */
  tool: string;
  /**
   * The JSON-RPC id of the call, written as its reply carries it: a number JavaScript cannot hold exactly is the
   * number as sent (JSON.parse rounds it; read the line's text to keep it), or a string ending with `…` when cut.
   */
  id: string | number;
  /** The call's permission patterns (`[]` for a tool without them). */
  patterns: string[];
  /** HMAC-SHA256 (hex) of the arguments' canonical JSON, when the trail has a key. */
  args_hmac?: string;
  /** sha256 (hex) of the arguments' canonical JSON, when the trail has no key. */
  args_sha256?: string;
  /** Set instead of a digest when the arguments break the tool's inputSchema: nothing runs, nothing is digested. */
  args_invalid?: true;
  /** The client's declared name and version. */
  client: string;
  /**
   * The fields cut because the client made them too long for a record
   * (`id`, `client`, `patterns`); their values end with `…`. Absent when none was.
   */
  cut?: string[];
}

/** Written and flushed before a side-effecting call runs: a call is about to happen. */
export interface AuditIntent extends AuditLink, AuditCall {
  /** The record's kind. */
  event: "intent";
}

/** Written when the call of an {@linkcode AuditIntent} ended. */
export interface AuditResult extends AuditLink {
  /** The record's kind. */
  event: "outcome";
  /** The `seq` of the intent this outcome ends. */
  intent: number;
  /** The tool, repeated so that one line can be read alone. */
  tool: string;
  /** How the call ended. */
  outcome: AuditOutcome;
  /**
   * How the user answered the tool's confirmation (`registerPatternTool`'s
   * `confirm`): `accepted`, `declined`, `cancelled`, or `unavailable` (the
   * client could not ask and the tool ran unconfirmed), or `replayed` (a
   * 2026-07-28 client sent back an acceptance already spent on a run: refused,
   * nothing ran). Absent when none was asked.
   */
  confirmation?: "accepted" | "declined" | "cancelled" | "unavailable" | "replayed";
  /** Milliseconds from the intent to the end of the call. */
  duration_ms: number;
}

/**
 * Written after an outcome `timeout` or `aborted`, when the handler that
 * outcome left running (one that ignores its signal) ended: at most one per
 * call. A handler that never ends, or still runs when the trail closes (a
 * shutdown), gets none.
 */
export interface AuditLate extends AuditLink {
  /** The record's kind. */
  event: "late";
  /** The `seq` of the intent whose call's outcome came first. */
  intent: number;
  /** The tool, repeated so that one line can be read alone. */
  tool: string;
  /**
   * How the handler ended: `ok` (it returned a result: the action may have
   * been done in full), `isError` (it returned or threw a domain error), or
   * `error` (it threw).
   */
  ended: "ok" | "isError" | "error";
  /** Milliseconds from the intent to the handler's end. */
  duration_ms: number;
}

/** One record for a probe: it runs nothing, so it needs no intent. */
export interface AuditProbe extends AuditLink, AuditCall {
  /** The record's kind. */
  event: "probe";
  /**
   * `probe` when answered, `isError` when the patterns refused the arguments;
   * `error`, `timeout` or `aborted` when the pattern function threw otherwise,
   * passed the deadline or was cancelled.
   */
  outcome: AuditOutcome;
}

/** One line of the audit trail. Argument values never appear: only their digest. */
export type AuditRecord = AuditIntent | AuditResult | AuditLate | AuditProbe;
