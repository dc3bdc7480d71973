import { sha256Hex } from "../internal/sha256_hex.ts";
import { GENESIS } from "./_digest.ts";

/** A record of the chain, named by its number and the sha256 of its line. */
export interface AuditHead {
  /** The record's `seq`. */
  seq: number;
  /** sha256 (hex) of the record's line, without its newline. */
  hash: string;
}

/** Options of {@linkcode verifyAuditTrail}. */
export interface VerifyAuditOptions {
  /**
   * The record the text continues: the previous file's last record, for a
   * file started by rotation.
   * @default {none: the first record must be seq 0 and link to 64 zeros}
   */
  after?: AuditHead;
  /**
   * A record known from elsewhere (the head shipped off the machine): the text
   * must hold it unchanged, which also finds records cut off the end.
   * @default {undefined}
   */
  head?: AuditHead;
  /**
   * Skip lines that are not audit records (a stderr log shared with other output).
   * @default {false}
   */
  skipOtherLines?: boolean;
}

/** What {@linkcode verifyAuditTrail} found. */
export interface AuditVerdict {
  /** True when every link holds (and the shipped head, if given, is there unchanged). */
  ok: boolean;
  /** How many records were checked before the first broken link. */
  records: number;
  /** The last good record: ship it elsewhere, pass it as `after` to the next file. */
  last: AuditHead | undefined;
  /** The first broken link: its 1-based line number and what is wrong. */
  broken?: { line: number; reason: string };
  /** The seq of each intent with no outcome after it: a crash, or a call still running. */
  openIntents: number[];
}

/**
 * Checks an audit trail's hash chain and reports the first broken link: a
 * line that is not a record, a record whose `prev` is not the sha256 of the
 * line before it, a `seq` out of order, an outcome for no open intent, or a
 * `late` record that does not follow its call's `timeout` or `aborted`
 * outcome or repeats one. (An outcome or a `late` record whose intent is in
 * an earlier file, before `after`, cannot be checked against it; a second
 * `late` record for it is still found.)
 * An edited, deleted, inserted or reordered line breaks the link after it;
 * the last line, and records cut off the end, are covered by `head`.
 *
 * @param text The file's content (or several rotated files' contents, oldest first, joined).
 * @param options See {@linkcode VerifyAuditOptions}.
 * @returns The verdict; it never throws on bad input.
 *
 * @example Find the line someone edited
 * ```ts
 * import { verifyAuditTrail } from "@forge/toolkit/middleware";
 * import assert from "node:assert/strict";
 *
 * const verdict = await verifyAuditTrail('{"seq":0,"prev":"x"}\n');
 * assert.equal(verdict.ok, false);
 * assert.equal(verdict.broken?.line, 1);
 * ```
 */
export async function verifyAuditTrail(text: string, options: VerifyAuditOptions = {}): Promise<AuditVerdict> {
  let expected: AuditHead = options.after ?? { seq: -1, hash: GENESIS };
  let last: AuditHead | undefined;
  let records = 0;
  let sawHead = false;
  const open = new Map<number, true>();
  // Intents whose call ended timeout or aborted: the one late record each may get, taken when it comes.
  const mayEndLate = new Set<number>();
  // Intents before this text (rotation): whether each may still get its late record (only when this text told).
  const earlier = new Map<number, boolean>();
  const firstSeq = expected.seq + 1;
  const lines = text.split("\n");
  const complete = lines.pop() === "";
  const fail = (line: number, reason: string): AuditVerdict => ({
    ok: false,
    records,
    last,
    broken: { line, reason },
    openIntents: [...open.keys()],
  });
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (options.skipOtherLines && !line.startsWith('{"seq":')) continue;
    const record = parse(line);
    if (record === undefined) return fail(i + 1, "it is not an audit record");
    if (record.seq !== expected.seq + 1) {
      return fail(i + 1, `seq ${record.seq} follows seq ${expected.seq}: a record is missing or out of order`);
    }
    if (record.prev !== expected.hash) {
      return fail(i + 1, `its prev is not the sha256 of the record before it: that record was changed or removed`);
    }
    if (record.event === "intent") open.set(record.seq, true);
    if (record.event === "outcome" && record.intent !== null) {
      const left = record.outcome === "timeout" || record.outcome === "aborted";
      if (record.intent >= firstSeq) {
        if (!open.delete(record.intent)) return fail(i + 1, `it ends intent ${record.intent}, which is not open`);
        if (left) mayEndLate.add(record.intent);
      } else earlier.set(record.intent, left);
    }
    if (record.event === "late") {
      const intent = record.intent!;
      let taken: boolean;
      if (intent >= firstSeq) taken = mayEndLate.delete(intent);
      else {
        taken = earlier.get(intent) !== false;
        earlier.set(intent, false);
      }
      if (!taken) {
        return fail(
          i + 1,
          `it says how the handler of intent ${record.intent} ended, but that call has no timeout or aborted ` +
            `outcome before it, or it was said already`,
        );
      }
    }
    const hash = await sha256Hex(line);
    if (options.head && record.seq === options.head.seq) {
      if (hash !== options.head.hash) return fail(i + 1, `seq ${record.seq} differs from the head shipped elsewhere`);
      sawHead = true;
    }
    expected = last = { seq: record.seq, hash };
    records++;
  }
  if (lines.length > 0 && !complete) {
    return fail(lines.length + 1, "the last line is not complete (no newline)");
  }
  if (options.head && !sawHead) {
    return fail(
      lines.length + 1,
      `the trail ends at seq ${
        last?.seq ?? "(none)"
      }, before the shipped head seq ${options.head.seq}: records were cut off`,
    );
  }
  return { ok: true, records, last, openIntents: [...open.keys()] };
}

interface Parsed {
  seq: number;
  prev: string;
  event: string;
  intent: number | null;
  outcome: unknown;
}

const LATE_ENDS: readonly unknown[] = ["ok", "isError", "error"];

function parse(line: string): Parsed | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const r = value as Record<string, unknown> | null;
  if (r === null || typeof r !== "object" || Array.isArray(r)) return undefined;
  if (!Number.isSafeInteger(r.seq) || typeof r.prev !== "string") return undefined;
  if (r.event !== "intent" && r.event !== "outcome" && r.event !== "probe" && r.event !== "late") return undefined;
  if (r.event === "outcome" && r.intent !== null && !Number.isSafeInteger(r.intent)) return undefined;
  // A late record always names its intent (a call run without one has none to follow), and how the handler ended.
  if (r.event === "late" && (!Number.isSafeInteger(r.intent) || !LATE_ENDS.includes(r.ended))) return undefined;
  const intent = (r.intent as number | null) ?? null;
  return { seq: r.seq as number, prev: r.prev, event: r.event, intent, outcome: r.outcome };
}
