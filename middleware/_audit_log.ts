// The hash chain and its one writer: records are numbered, linked and
// serialized in the order they were appended, and every batch is written
// once and made durable before any of its callers hears back.

import { sha256Hex } from "../internal/sha256_hex.ts";
import { GENESIS } from "./_digest.ts";

const encoder = new TextEncoder();

/**
 * The longest record written, in UTF-8 bytes: a quarter of what the file
 * reads back to link to its last record, so a record written is one the
 * trail can always read back. The middleware cuts what a client chooses long
 * before this; a record still longer is refused, not written.
 */
export const MAX_RECORD_BYTES = 256 * 1024;

/** Why a record could not be written, in words safe to show the model (no path), with the detail for stderr. */
export class AuditUnavailable extends Error {
  /** @param reason Safe to show. @param detail For the operator. */
  constructor(readonly reason: string, readonly detail: string = reason) {
    super(`Cannot write the audit record: ${reason}`);
    this.name = "AuditUnavailable";
  }
}

/** Wraps an OS error with a reason that names no path; the detail keeps the message. */
export function unavailable(reason: string, err: unknown): AuditUnavailable {
  const name = (err as Error)?.name;
  const code = (err as { code?: string })?.code ?? (name && name !== "Error" ? name : undefined);
  const message = err instanceof Error ? err.message : String(err);
  return new AuditUnavailable(code ? `${reason} (${code})` : reason, `${reason}: ${message}`);
}

/** Where the lines go: a file, stderr, or a caller's sink. */
export interface AuditTarget {
  /**
   * Opens the target or checks it is still the one opened, before each batch.
   * Resolves with the last line already there (newline included when there is
   * one) when it has just opened a non-empty file, so the chain links to it.
   * With `recheck` it opens the path again even when it is the same file: the
   * chain could not be linked to it, so it must show its last line again.
   */
  ready(recheck: boolean): Promise<string | undefined>;
  /** Writes complete lines, and makes them durable when `sync` is set; on failure none of them may stay. */
  write(text: string, sync: boolean): Promise<void>;
  /** Ends a batch begun by `ready`, written or not (a file lets another process's trail take its turn). */
  release?(): Promise<void>;
  /** Releases the target. */
  close(): Promise<void>;
}

interface Pending {
  fields: Record<string, unknown>;
  sync: boolean;
  resolve: (seq: number) => void;
  reject: (err: unknown) => void;
}

/** The chain's last record: what the next one links to. */
export interface Head {
  seq: number;
  hash: string;
}

/** Appends chained records to one target, in order, in batches. */
export class AuditLog {
  #target: AuditTarget;
  #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  #head: Head | undefined;
  // Set when the file's last line did not link: until it does (the operator put
  // the file back or moved it aside), every batch is refused, never appended.
  #unlinked = false;

  constructor(target: AuditTarget) {
    this.#target = target;
  }

  /**
   * Appends `{seq, prev, ...fields}`; resolves with its seq once it is written,
   * and synced to disk when `sync` is set. An unsynced record still reaches the
   * disk before any later synced one (a sync flushes the whole file), so the
   * chain never has a hole; only the last unsynced records can be lost, and
   * only when the machine itself goes down.
   */
  append(fields: Record<string, unknown>, sync = true): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ fields, sync, resolve, reject });
      this.#flushing ??= this.#flush();
    });
  }

  async #flush(): Promise<void> {
    while (this.#queue.length > 0) {
      let batch = this.#queue.splice(0);
      try {
        const tail = await this.#target.ready(this.#unlinked);
        if (tail !== undefined) {
          try {
            this.#head = await linkTo(tail, this.#head);
          } catch (err) {
            this.#unlinked = true;
            throw err;
          }
        }
        this.#unlinked = false;
        let head = this.#head ?? { seq: -1, hash: GENESIS };
        const lines: string[] = [];
        const kept: Pending[] = [];
        for (const pending of batch) {
          const line = escapeSeparators(JSON.stringify({ seq: head.seq + 1, prev: head.hash, ...pending.fields }));
          const bytes = line.length * 3 <= MAX_RECORD_BYTES ? line.length : encoder.encode(line).length;
          if (bytes > MAX_RECORD_BYTES) {
            pending.reject(
              new AuditUnavailable(`the record would take ${bytes} bytes, over the ${MAX_RECORD_BYTES} a record may`),
            );
            continue;
          }
          head = { seq: head.seq + 1, hash: await sha256Hex(line) };
          lines.push(line);
          kept.push(pending);
        }
        batch = kept;
        if (lines.length > 0) await this.#target.write(lines.join("\n") + "\n", batch.some((p) => p.sync));
        const first = (this.#head?.seq ?? -1) + 1;
        this.#head = head;
        batch.forEach((pending, i) => pending.resolve(first + i));
      } catch (err) {
        for (const pending of batch) pending.reject(err);
      } finally {
        await this.#target.release?.();
      }
    }
    this.#flushing = undefined;
  }

  /** Waits for the records already appended, then closes the target. */
  async close(): Promise<void> {
    await this.#flushing;
    await this.#target.close();
  }
}

// What JSON.stringify leaves raw but some readers take for a line break (Python's splitlines(), log viewers, the
// toolkit's own stderr log lines escape them too): written escaped, so a value a client chose never splits a record.
const SEPARATORS = /[\u0085\u2028\u2029]/g;

/** `line` with U+0085, U+2028 and U+2029 written as JSON escapes: the same JSON, on one line for every reader. */
function escapeSeparators(line: string): string {
  return line.replace(SEPARATORS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The head after the last line of a file just opened. At start it continues
 * that record; after a rotation the new file must be empty or end with the
 * record this log wrote last, else the file was replaced under it. Each
 * refusal says what the operator must do: the trail refuses until then.
 */
async function linkTo(tail: string, head: Head | undefined): Promise<Head> {
  if (!tail.endsWith("\n")) {
    throw new AuditUnavailable("the audit file ends in a partial line; move it aside to start a new file");
  }
  const line = tail.slice(0, -1);
  const hash = await sha256Hex(line);
  if (head !== undefined) {
    if (hash === head.hash) return head;
    throw new AuditUnavailable(
      "the audit file was replaced: it does not end with the last record written; put the original back, " +
        "or move this one aside to start a new file",
    );
  }
  let seq: unknown;
  try {
    seq = (JSON.parse(line) as { seq?: unknown })?.seq;
  } catch {
    seq = undefined;
  }
  if (!Number.isSafeInteger(seq) || (seq as number) < 0) {
    throw new AuditUnavailable("the audit file does not end with an audit record; point the trail at its own file");
  }
  return { seq: seq as number, hash };
}
