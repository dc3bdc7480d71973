import { ToolError } from "../internal/tool_error.ts";
import { readUpTo } from "./_capped_stream.ts";
import { wholeCharacters } from "./_utf8.ts";

/**
 * A cap was hit and the caller asked for an error rather than a truncation.
 * The model can fix it by asking for less (a smaller range, fewer rows).
 *
 * @example Catch a limit
 * ```ts
 * import { assertWithinLimit, LimitError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => assertWithinLimit(2_000_000, 1_000_000, "read file"), LimitError);
 * ```
 */
export class LimitError extends ToolError {
  /** The cap that was hit. */
  readonly limit: number;

  /**
   * Builds the error; the message reads `Cannot <action>: it exceeds the limit of N <unit>, ask for less`.
   *
   * @param action What was being done, e.g. `read "big.log"`.
   * @param limit The cap that was hit.
   * @param unit What the cap counts, e.g. `bytes`.
   */
  constructor(action: string, limit: number, unit: string) {
    super(`Cannot ${action}: it exceeds the limit of ${limit} ${unit}, ask for less`);
    this.name = "LimitError";
    this.limit = limit;
  }
}

/**
 * Throws a {@linkcode LimitError} when `size` is over `limit` bytes.
 *
 * @param size The size found.
 * @param limit The cap.
 * @param action What was being done, for the message.
 * @throws {LimitError} When `size > limit`.
 *
 * @example Check a Content-Length
 * ```ts
 * import { assertWithinLimit } from "@forge/toolkit/validate";
 *
 * assertWithinLimit(10, 1024, "fetch the page");
 * ```
 */
export function assertWithinLimit(size: number, limit: number, action: string): void {
  if (size > limit) throw new LimitError(action, limit, "bytes");
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes (never inside a character)
 * and, when it cut, ends it with a marker the model can read:
 * `[truncated: showed N of M bytes]`. The marker itself is not counted. The
 * marker is inside the text, so text that ends like one cannot be told from
 * a cut: for text a client or a file supplies, use {@linkcode cutText}.
 *
 * @param text The text.
 * @param maxBytes The cap in UTF-8 bytes.
 * @returns The text, whole or cut and marked.
 *
 * @example Keep a result small
 * ```ts
 * import { capText } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(capText("hello", 10), "hello");
 * assert.equal(capText("hello world", 5), "hello\n[truncated: showed 5 of 11 bytes]");
 * ```
 */
export function capText(text: string, maxBytes: number): string {
  const cut = cutText(text, maxBytes);
  return cut.marker === undefined ? cut.text : `${cut.text}\n${cut.marker}`;
}

/**
 * Text that may have been cut, with the marker that says so kept apart from
 * it: the text's own content cannot pass for the marker, as it can when the
 * marker is appended (a file that ends with `[truncated: …]` of its own).
 */
export interface CutText {
  /** The text, whole or its start (never cut inside a character). */
  text: string;
  /** `[truncated: showed N of M bytes]` when the text was cut; absent when it is whole. */
  marker?: string;
}

/**
 * Cuts `text` to at most `maxBytes` UTF-8 bytes (never inside a character),
 * as {@linkcode capText} does, but gives the marker apart from the text, so
 * that a result can carry it where the text cannot reach: a content block of
 * its own ({@linkcode textWithNotice} in `@forge/toolkit`). Use it for text a
 * client or a file supplies; `capText` is for text the server wrote itself.
 *
 * @param text The text.
 * @param maxBytes The cap in UTF-8 bytes.
 * @returns The text, whole or cut, and the marker when it was cut.
 *
 * @example Cut a file's text and keep the marker apart
 * ```ts
 * import { cutText } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(cutText("hello world", 5), { text: "hello", marker: "[truncated: showed 5 of 11 bytes]" });
 * // Whole text, even one that ends like a marker, has none.
 * assert.deepEqual(cutText("[truncated: showed 1 of 2 bytes]", 100), { text: "[truncated: showed 1 of 2 bytes]" });
 * ```
 */
export function cutText(text: string, maxBytes: number): CutText {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= maxBytes) return { text };
  const end = wholeCharacters(bytes.subarray(0, maxBytes));
  // A leading U+FEFF is text like any other: the default decoder would drop it from a cut text only.
  return {
    text: new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes.subarray(0, end)),
    marker: truncationMarker(end, bytes.length, "bytes"),
  };
}

/**
 * The marker appended to cut output: `[truncated: showed 5 of 11 bytes]`.
 *
 * @param shown How many units are shown.
 * @param total How many there were, if known.
 * @param unit What is counted, e.g. `bytes` or `rows`.
 * @returns The marker.
 *
 * @example Mark cut rows
 * ```ts
 * import { truncationMarker } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(truncationMarker(100, undefined, "rows"), "[truncated: showed the first 100 rows]");
 * ```
 */
export function truncationMarker(shown: number, total: number | undefined, unit: string): string {
  return total === undefined
    ? `[truncated: showed the first ${shown} ${unit}]`
    : `[truncated: showed ${shown} of ${total} ${unit}]`;
}

/** Rows taken by {@linkcode capRows}. */
export interface CappedRows<T> {
  /** At most the cap of rows. */
  rows: T[];
  /** Whether more rows were left. */
  truncated: boolean;
}

/**
 * Takes at most `maxRows` rows from an iterable and says whether there were
 * more; it reads one row past the cap to know, and no further.
 *
 * @param rows The rows, e.g. a statement's `iterate()`.
 * @param maxRows The cap.
 * @returns The rows and whether they were cut.
 *
 * @example Cap a query result
 * ```ts
 * import { capRows } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(capRows([1, 2, 3], 2), { rows: [1, 2], truncated: true });
 * ```
 */
export function capRows<T>(rows: Iterable<T>, maxRows: number): CappedRows<T> {
  const out: T[] = [];
  const iterator = rows[Symbol.iterator]();
  try {
    for (let next = iterator.next(); !next.done; next = iterator.next()) {
      if (out.length === maxRows) return { rows: out, truncated: true };
      out.push(next.value);
    }
    return { rows: out, truncated: false };
  } finally {
    iterator.return?.();
  }
}

/** Options of {@linkcode readCapped}. */
export interface ReadCappedOptions {
  /** The cap in bytes. */
  maxBytes: number;
  /**
   * Whether to stop at the cap and report `truncated` instead of throwing.
   * @default {false}
   */
  truncate?: boolean;
  /** Stops the read; the stream is cancelled. */
  signal?: AbortSignal;
  /**
   * What is being read, for the error message, e.g. `read "a.txt"`.
   * @default {"read the data"}
   */
  action?: string;
}

/** Bytes read by {@linkcode readCapped}. */
export interface CappedBytes {
  /** At most `maxBytes` bytes. */
  bytes: Uint8Array;
  /** Whether the source had more. */
  truncated: boolean;
}

/**
 * Reads a byte stream up to a cap. Past the cap it cancels the stream and
 * either throws a {@linkcode LimitError} or, with `truncate`, returns the
 * first `maxBytes` bytes marked as truncated. It never buffers more than
 * `maxBytes` plus one chunk.
 *
 * @param stream The bytes, e.g. a response body.
 * @param options The cap and what to do at it.
 * @returns The bytes and whether they were cut.
 * @throws {LimitError} Past the cap without `truncate`.
 * @throws {DOMException} When `signal` aborts.
 *
 * @example Cap a body
 * ```ts
 * import { readCapped } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const body = new Response("hello world").body!;
 * const { bytes, truncated } = await readCapped(body, { maxBytes: 5, truncate: true });
 * assert.equal(new TextDecoder().decode(bytes), "hello");
 * assert.equal(truncated, true);
 * ```
 */
export async function readCapped(stream: ReadableStream<Uint8Array>, options: ReadCappedOptions): Promise<CappedBytes> {
  const { maxBytes, signal } = options;
  const reader = stream.getReader();
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    signal?.throwIfAborted();
    // An abort cancels the reader, which ends the reading; it is thrown here.
    const { bytes, cut } = await readUpTo(reader, maxBytes);
    signal?.throwIfAborted();
    if (!cut) return { bytes, truncated: false };
    await reader.cancel().catch(() => {});
    if (!options.truncate) throw new LimitError(options.action ?? "read the data", maxBytes, "bytes");
    return { bytes, truncated: true };
  } finally {
    signal?.removeEventListener("abort", onAbort);
    reader.releaseLock();
  }
}
