// Reading a stream while keeping at most a cap of it: the one loop behind
// readCapped() (limits.ts) and a command's output (command_policy.ts), which
// differ only in what the cap and an abort mean to them.

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
  const kept = new ByteSink(cap);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      if (kept.size + value.length > cap) {
        kept.add(value.subarray(0, cap - kept.size));
        return { bytes: kept.bytes(), cut: true };
      }
      kept.add(value);
    }
  } catch (err) {
    if (!keepOnError) throw err;
  }
  return { bytes: kept.bytes(), cut: false };
}

/**
 * Bytes copied into one buffer that doubles up to a cap. A chunk is never
 * kept itself: Deno's fetch hands each chunk of a chunked body over as a
 * view into a fresh 64 KiB buffer, so keeping 1-byte chunks kept 64 KiB a
 * byte (a server's body of 1-byte chunks took 12 GB to read 262,154 bytes).
 */
class ByteSink {
  #buffer: Uint8Array<ArrayBuffer>;
  #size = 0;
  readonly #cap: number;

  constructor(cap: number) {
    this.#cap = cap;
    this.#buffer = new Uint8Array(Math.min(cap, 64 * 1024));
  }

  get size(): number {
    return this.#size;
  }

  /** Copies `chunk` in; the caller keeps the total within the cap. */
  add(chunk: Uint8Array): void {
    const needed = this.#size + chunk.length;
    if (needed > this.#buffer.length) {
      const grown = new Uint8Array(Math.min(this.#cap, Math.max(needed, this.#buffer.length * 2)));
      grown.set(this.#buffer.subarray(0, this.#size));
      this.#buffer = grown;
    }
    this.#buffer.set(chunk, this.#size);
    this.#size = needed;
  }

  /** The bytes added, in a buffer of their own size; once, at the end (the sink's buffer is handed over, not copied). */
  bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.#buffer.buffer.transfer(this.#size));
  }
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
