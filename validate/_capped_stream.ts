// Reading a stream while keeping at most a cap of it: the one loop behind
// readCapped() (limits.ts) and a command's output (command_policy.ts), which
// differ only in what the cap and an abort mean to them.

import { concatBytes } from "../internal/concat_bytes.ts";
import { wholeCharacters } from "./_utf8.ts";

/** What {@linkcode readUpTo} read. */
export interface UpTo {
  /** The first bytes, at most the cap. */
  readonly bytes: Uint8Array;
  /** Whether a byte past the cap came (reading stopped there). */
  readonly cut: boolean;
}

/**
 * Reads `reader` until it ends, keeping at most `cap` bytes, and stops at the
 * first byte past the cap; what happens to the rest is the caller's choice. A
 * read that fails ends the reading with what was kept when `keepOnError`,
 * else its error propagates. A cancelled reader simply ends.
 */
export async function readUpTo(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  cap: number,
  keepOnError = false,
): Promise<UpTo> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (size + value.length > cap) {
        chunks.push(value.subarray(0, cap - size));
        return { bytes: concatBytes(chunks), cut: true };
      }
      chunks.push(value);
      size += value.length;
    }
  } catch (err) {
    if (!keepOnError) throw err;
  }
  return { bytes: concatBytes(chunks), cut: false };
}

/** What {@linkcode collectCapped} kept of a stream. */
export interface Collected {
  /** The first bytes, up to the cap, cut on a whole UTF-8 character when cut. */
  readonly bytes: Uint8Array;
  /** Whether more bytes came than the cap. */
  readonly cut: boolean;
}

/**
 * Reads a child's pipe, keeping at most `cap` bytes. On the first byte past
 * the cap it calls `onOverflow` (the caller stops the program: draining a
 * program that writes without end would cost time without bound) and stops
 * reading. `stop` ends the read early, for a pipe that a process outside
 * the killed group still holds open.
 */
export async function collectCapped(
  stream: ReadableStream<Uint8Array>,
  cap: number,
  onOverflow: () => void,
  stop: AbortSignal,
): Promise<Collected> {
  const reader = stream.getReader();
  const cancel = () => reader.cancel().catch(() => {});
  stop.addEventListener("abort", cancel, { once: true });
  let kept: UpTo;
  try {
    // A cancelled or failed read ends the reading: what was kept stands.
    kept = await readUpTo(reader, cap, true);
    if (kept.cut) onOverflow();
  } finally {
    stop.removeEventListener("abort", cancel);
    cancel();
  }
  return { bytes: kept.cut ? kept.bytes.subarray(0, wholeCharacters(kept.bytes)) : kept.bytes, cut: kept.cut };
}
