import { logLine, RECORD_TIMEOUT_MS } from "../internal/stderr.ts";
import { positive } from "../internal/positive_number.ts";
import type { CallContext, ExactId, Middleware } from "../toolkit/middleware.ts";
import { error, type ToolResult } from "../toolkit/result.ts";
import type { Tool } from "../toolkit/tool.ts";
import { AuditFile } from "./_audit_file.ts";
import { AuditLog, type AuditTarget, AuditUnavailable } from "./_audit_log.ts";
import { auditStderr } from "./_audit_stderr.ts";
import { canonicalDigest } from "../internal/canonical_digest.ts";
import { readAuditKey } from "./_audit_key.ts";
import { handlerEndOf } from "../internal/handler_end.ts";
import type { AuditOutcome } from "./audit_record.ts";

/** Options of {@linkcode auditTrail}. */
export interface AuditOptions {
  /** The server's name, written in every record. */
  server: string;
  /**
   * An append-only file for the records, opened with `append` and `create`
   * (mode 0600). The process needs `--allow-read` and `--allow-write` for
   * exactly this file: the permissions module derives both when the file is
   * one of the policy's `writeFiles`.
   * @default {undefined: records go to stderr}
   */
  file?: string;
  /**
   * Record every tool, not only pattern tools (those with side effects).
   * Calls of tools annotated `readOnlyHint: true` are recorded but never refused.
   * @default {false}
   */
  all?: boolean;
  /**
   * Where lines go instead of stderr or the file (log shippers, tests). A
   * returned promise is awaited; a rejected one counts as a failed write.
   * @default {undefined}
   */
  sink?: (line: string) => unknown;
  /**
   * The HMAC key for `args_hmac` (at least 32 bytes; a string is taken as UTF-8).
   * @default {the `keyFile`, else FORGE_AUDIT_KEY when the process may read it, else no key: `args_sha256`}
   */
  key?: string | Uint8Array<ArrayBuffer>;
  /**
   * A file holding the HMAC key (one trailing newline is dropped). It must
   * not be readable by other users.
   * @default {undefined}
   */
  keyFile?: string;
  /**
   * Let side-effecting calls run when their intent record cannot be written.
   * Only for development: the side effect then goes unrecorded. A warning is
   * printed when the trail is made.
   * @default {false}
   */
  failOpen?: boolean;
  /**
   * How long stderr may take to accept a batch of records before the calls
   * waiting on it are refused (stderr only): a positive, finite number of
   * milliseconds, or auditTrail() throws a RangeError.
   * @default {1000}
   */
  stderrTimeoutMs?: number;
  /**
   * Where the trail reports its own problems.
   * @default {a stderr line that never blocks}
   */
  log?: (line: string) => void;
}

/** The audit trail middleware, with a way to close its file. */
export interface AuditTrail extends Middleware {
  /** Writes the records still queued and closes the audit file, if any. Call it from `onClose`. */
  close(): Promise<void>;
}

/**
 * A middleware that keeps a write-ahead, hash-chained record of every call of
 * a pattern tool (every tool with `all: true`). Before the handler runs, an
 * `intent` record is written and made durable (the file is synced); when the
 * call ends, an `outcome` record names the intent it ends. A call that ends
 * `timeout` or `aborted` while its handler runs on (one that ignores its
 * signal) gets one `late` record when that handler ends, saying how; none
 * when it never ends or the trail is closed first. A call whose intent
 * cannot be written is refused with an `isError` result that says why (fail
 * closed); read-only tools are never refused. Each record carries the sha256
 * of the record before it, so `verifyAuditTrail` finds an edited, deleted,
 * inserted or reordered line. Argument values never appear: only an
 * HMAC-SHA256 of their canonical JSON under the operator's key
 * (`args_hmac`), or without a key their plain sha256 (`args_sha256`).
 * Probes get one `probe` record, written before the probe is answered; a
 * probe whose record cannot be written is answered `isError`. A call or
 * probe whose pattern function fails (throws, passes the deadline, is
 * cancelled) is recorded too, with no patterns and that outcome. SIGUSR1 reopens the file (rotation); so
 * does noticing that its path now names another file.
 *
 * @param options See {@linkcode AuditOptions}.
 * @returns The middleware (put it first in `run()`'s `middleware` to time everything).
 * @throws {RangeError} When the key is shorter than 32 bytes.
 * @throws {Error} When the key file cannot be read or other users may read it.
 *
 * @example Audit every side-effecting call to a file
 * ```ts
 * import { auditTrail } from "@forge/toolkit/middleware";
 * import type { RunOptions } from "@forge/toolkit";
 *
 * const audit = auditTrail({ server: "files", file: "/var/log/forge/files-audit.jsonl" });
 * const options: RunOptions = { middleware: [audit], onClose: () => audit.close() };
 * ```
 */
export function auditTrail(options: AuditOptions): AuditTrail {
  const log = options.log ?? logLine;
  const name = options.server;
  // NaN or Infinity would never refuse a record stderr does not take: the trail's calls would wait on it until their
  // own deadlines.
  const stderrTimeoutMs = positive(
    options.stderrTimeoutMs ?? undefined,
    RECORD_TIMEOUT_MS,
    "stderrTimeoutMs",
    "create the audit trail",
    "milliseconds",
  );
  const key = readAuditKey(options);
  if (options.failOpen) {
    log(`${name}: audit failOpen is set: side-effecting calls run even when their audit record cannot be written`);
  }
  const file = options.file === undefined ? undefined : new AuditFile(options.file);
  const target: AuditTarget = file ??
    (options.sink ? sinkTarget(options.sink) : auditStderr(stderrTimeoutMs));
  const records = new AuditLog(target);
  const rotate = () => file?.reopen();
  // By intent, the calls that ended (timeout, aborted) with their handler running on: each gets a `late` record when
  // the handler ends, written after the call's outcome.
  const running = new Map<number, LateWatch>();
  let closing = false;
  const leftRunning = (seqs: number[]) =>
    log(
      `${name}: the audit trail closes while ${seqs.length} handler(s) whose call timed out or was aborted still ` +
        `run (intents ${seqs.join(", ")}): no late record will say how they end`,
    );
  let listening = file !== undefined && Deno.build.os !== "windows";
  if (listening) Deno.addSignalListener("SIGUSR1", rotate);

  const report = (what: string, record: Record<string, unknown>) => (err: unknown) => {
    const detail = err instanceof AuditUnavailable ? err.detail : String(err);
    log(`${name}: cannot write the audit ${what} record (${detail}): ${JSON.stringify(record)}`);
  };

  // A probe's or a call's record that cannot be written is logged, and refuses a side-effecting tool (unless
  // failOpen): the answer is `refusal` of why, else undefined.
  const unwritten = (
    ctx: CallContext,
    what: string,
    record: Record<string, unknown>,
    err: unknown,
    refusal: (why: string) => string,
  ): ToolResult | undefined => {
    report(what, record)(err);
    if (options.failOpen || !sideEffecting(ctx.tool, ctx.patternTool)) return undefined;
    const reason = err instanceof AuditUnavailable ? err.reason : "the audit trail failed";
    return error(refusal(`its audit record cannot be written (${reason})`));
  };

  const middleware = async (ctx: CallContext, next: () => Promise<ToolResult>): Promise<ToolResult> => {
    const started = performance.now();
    const cut: string[] = [];
    const call = {
      time: new Date().toISOString(),
      server: name,
      tool: ctx.tool.name,
      id: capped(ctx.requestId, MAX_ID_CHARS, "id", cut),
      patterns: cappedPatterns(ctx.patterns?.patterns ?? [], cut),
      // Arguments the schema refuses run nothing: they are not digested, and the record says so.
      ...(!ctx.argumentsValid
        ? { args_invalid: true }
        : key
        ? { args_hmac: canonicalDigest(ctx.arguments, "hex", key) }
        : { args_sha256: canonicalDigest(ctx.arguments, "hex") }),
      client: capped(`${ctx.client.name} ${ctx.client.version}`.trim(), MAX_CLIENT_CHARS, "client", cut),
      ...(cut.length > 0 ? { cut } : {}),
    };
    if (ctx.probe) {
      let result: ToolResult;
      try {
        result = await next();
      } catch (err) {
        // Its pattern function failed (a bug, the deadline, a cancellation): recorded too, then answered as it fails.
        const record = { event: "probe", ...call, outcome: failedOutcome(err) };
        await records.append(record, false).catch(report("probe", record));
        throw err;
      }
      const record = { event: "probe", ...call, outcome: result.isError ? "isError" : "probe" };
      // Answered only once its record is written, and refused like a call when it cannot be: never unrecorded.
      try {
        await records.append(record, false);
      } catch (err) {
        const refused = unwritten(ctx, "probe", record, err, (why) => `Cannot probe tool "${ctx.tool.name}": ${why}`);
        if (refused !== undefined) return refused;
      }
      return result;
    }
    const intentRecord = { event: "intent", ...call };
    let intent: number | null = null;
    try {
      intent = await records.append(intentRecord);
    } catch (err) {
      const refused = unwritten(
        ctx,
        "intent",
        intentRecord,
        err,
        (why) => `Cannot run tool "${ctx.tool.name}": ${why}; nothing was done`,
      );
      if (refused !== undefined) return refused;
    }
    // Written before the reply, so a client never hears of a side effect the trail lacks (unless the machine
    // itself goes down before the next sync: the intent then stands without its outcome). A failure is only logged.
    const end = (outcome: AuditOutcome): Promise<boolean> => {
      const record = {
        event: "outcome",
        time: new Date().toISOString(),
        intent,
        tool: ctx.tool.name,
        outcome,
        ...(ctx.confirmation === undefined ? {} : { confirmation: ctx.confirmation }),
        duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
      };
      return records.append(record, false).then(() => true, (err) => (report("outcome", record)(err), false));
    };
    // After a timeout or aborted outcome: one more record when a handler that ignored its signal ends.
    const lateEnd = (seq: number, written: Promise<boolean>): void => {
      const ended = handlerEndOf(ctx);
      if (ended === undefined) return;
      // A call that ends only once the trail is closing (run() settles its calls first): nothing more is recorded.
      if (closing) return;
      const watch: LateWatch = { ended: false, written: Promise.resolve() };
      running.set(seq, watch);
      const how = ended.then((how) => ((watch.ended = true), how));
      watch.written = Promise.all([written, how]).then(async ([outcomeWritten, how]) => {
        // Dropped by close() while the handler still ran; or no outcome to follow; or the handler never ran.
        if (running.get(seq) !== watch) return;
        running.delete(seq);
        if (!outcomeWritten || how === undefined) return;
        const record = {
          event: "late",
          time: new Date().toISOString(),
          intent: seq,
          tool: ctx.tool.name,
          ended: how,
          duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
        };
        await records.append(record, false).catch(report("late", record));
      });
    };
    try {
      // The deadline may have passed while the intent was written: the handler must not start then.
      ctx.signal.throwIfAborted();
      const result = await next();
      await end(result.isError ? "isError" : "ok");
      return result;
    } catch (err) {
      const outcome = failedOutcome(err);
      const written = end(outcome);
      // Watched from now, not from when the outcome is written: a shutdown may close the trail in between.
      if (intent !== null && (outcome === "timeout" || outcome === "aborted")) lateEnd(intent, written);
      await written;
      throw err;
    }
  };
  return Object.assign(middleware, {
    appliesTo: (_tool: Tool, patternTool: boolean) => options.all === true || patternTool,
    async close() {
      // A handler still running now ends unrecorded: the trail keeps its timeout or aborted outcome, and says so
      // here. One that has ended gets its late record first (it may wait for its call's outcome to be written).
      closing = true;
      const left = [...running].filter(([, watch]) => !watch.ended).map(([seq]) => seq);
      for (const seq of left) running.delete(seq);
      if (left.length > 0) leftRunning(left);
      await Promise.all([...running.values()].map((watch) => watch.written));
      if (listening) Deno.removeSignalListener("SIGUSR1", rotate);
      listening = false;
      await records.close();
    },
  });
}

/** The outcome of a call or probe whose `next()` threw `err`. */
function failedOutcome(err: unknown): AuditOutcome {
  let kind: unknown;
  try {
    kind = (err as { name?: unknown } | null)?.name;
  } catch {
    // A hostile thrown value (a Proxy whose traps throw) is a failure like any other.
  }
  return kind === "TimeoutError"
    ? "timeout"
    : kind === "AbortError"
    ? "aborted"
    : kind === "InputRequiredError"
    ? "input_required"
    : "error";
}

/** A call whose handler ran on past its outcome: whether the handler has ended, and its late record's write. */
interface LateWatch {
  ended: boolean;
  written: Promise<void>;
}

// What a client chooses (its id, its name, the values patterns are made of)
// is cut to these lengths in a record, and the record lists what was cut: a
// record stays far below what the trail reads back to link to it.
const MAX_ID_CHARS = 256;
const MAX_CLIENT_CHARS = 512;
const MAX_PATTERN_CHARS = 1024;
const MAX_PATTERNS = 64;

/** `value` cut to `max` characters (a string cut ends with `…`), naming `field` in `cut` when it was. */
function capped<T extends string | number | ExactId>(value: T, max: number, field: string, cut: string[]): T | string {
  // An exact number is written as the number the client sent (as its reply carries it), unless it must be cut:
  // then, as a cut string, its text.
  const text = typeof value === "object" ? value.text : value;
  if (typeof text !== "string" || text.length <= max) return value;
  cut.push(field);
  return `${text.slice(0, max)}…`;
}

/** The first {@linkcode MAX_PATTERNS} patterns, each cut to {@linkcode MAX_PATTERN_CHARS}. */
function cappedPatterns(patterns: readonly string[], cut: string[]): string[] {
  const kept = patterns.slice(0, MAX_PATTERNS).map((p) =>
    p.length <= MAX_PATTERN_CHARS ? p : `${p.slice(0, MAX_PATTERN_CHARS)}…`
  );
  if (patterns.length > MAX_PATTERNS || kept.some((p, i) => p !== patterns[i])) cut.push("patterns");
  return kept;
}

/** Whether a failed intent refuses the call: all but tools declared read-only. */
function sideEffecting(tool: Tool, patternTool: boolean): boolean {
  return patternTool || tool.annotations?.readOnlyHint !== true;
}

function sinkTarget(sink: (line: string) => unknown): AuditTarget {
  return {
    ready: () => Promise.resolve(undefined),
    async write(text) {
      for (const line of text.slice(0, -1).split("\n")) await sink(line);
    },
    close: () => Promise.resolve(),
  };
}
