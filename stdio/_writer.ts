// The one serialized writer to stdout. Messages queue as strings; whatever
// queues while a write is in flight goes out in the next write, so a burst of
// replies costs one syscall, not one each. The first write of a burst waits
// a few microtask hops: the calls of one read finish within a hop or two of
// each other, so they share it too. But once EARLY_FRAMES replies wait, they
// go out at once, while the rest of the read is still being answered: a
// client with many calls in flight reads and sends while we compute, instead
// of the two sides taking turns. Memory stays bounded: frames are joined
// only up to one chunk, every write is encoded into one reused buffer (a
// larger frame slice by slice), and a frame over the message limit is
// replaced before it is queued. The reader checks `congested` and waits on
// `idle()` so a client that stops reading cannot grow our memory.

import type { ByteWriter } from "../internal/byte_writer.ts";
import { frameBytes, type JsonParts, WRITE_CHUNK } from "../engine/json_parts.ts";
import { isHighSurrogate } from "../internal/utf8_length.ts";

const encoder = new TextEncoder();
// How many microtask hops the first write of a burst waits for more replies
// (docs/benchmarks.md, "The hot path": how many hops, and why not a timer).
const GATHER_HOPS = 4;
// How many replies waiting in the gathering hops are written without waiting
// for the rest (docs/benchmarks.md, "The hot path": how many, and what it does
// to calls/s and CPU). A read of a pipelining client's calls then splits into
// two writes, and the client's next calls arrive while the first half's
// replies are read; a client with fewer calls in flight never reaches it.
const EARLY_FRAMES = 48;
// How many units queued or in flight make a write large: half of a Linux
// pipe's 64 KiB. Reading while such a write of a few large replies is in
// flight cost the raw floor a third more CPU per call at 8 KiB; reading while
// a small one is, nothing (docs/benchmarks.md, "The hot path against the
// floor", item 8).
const LARGE_WRITE_UNITS = 32 * 1024;
// What a queued frame costs beside its units, as congestion counts it: a
// short reply is a string (often a rope of pieces) and a queue slot, some
// 250 bytes more than its text. Counted by units alone, 1.7 million queued
// `ping` replies were "64 MiB" and 430 MB.
const FRAME_COST = 256;

/** How a writer treats a frame larger than a message may be. */
export interface OversizeOptions {
  /** The largest frame written as it is, in UTF-8 bytes (without its newline). */
  maxFrameBytes: number;
  /**
   * Returns what to send instead of a frame of `bytes` bytes (`head` is its
   * start, `longId` its id when that is a long string kept apart), or
   * undefined to send nothing.
   */
  replace(head: string, bytes: number, longId?: string): string | JsonParts | undefined;
}

/** What a writer has not written, counted in frames and in bytes (each frame with its newline). */
export interface Unsent {
  /** Frames queued behind the write in flight. */
  queuedFrames: number;
  /** Their bytes. */
  queuedBytes: number;
  /** Frames of the write in flight whose newline the output has not taken. */
  inFlightFrames: number;
  /** Bytes of the write in flight (or of the large frame it is a slice of) the output has not taken. */
  inFlightBytes: number;
}

/** Serialised, batching, backpressured writer of newline-terminated frames. */
export class FrameWriter {
  readonly #out: ByteWriter;
  readonly #highWater: number;
  readonly #onError: (error: unknown) => void;
  readonly #oversize: OversizeOptions | undefined;
  #queue: (string | JsonParts)[] = [];
  #head = 0;
  // Units queued or in flight: a frame counts until its last byte is written.
  #queued = 0;
  // Frames queued and not yet encoded, each FRAME_COST more to congestion.
  #frames = 0;
  #writing = false;
  #failed = false;
  #waiters: (() => void)[] = [];
  #slice: Uint8Array | undefined;
  // True during the gathering hops, before a burst's first write.
  #gathering = false;
  // The write of a burst's first EARLY_FRAMES replies, once started; the burst's next write waits for it.
  #early: Promise<void> | undefined;
  // Writes to the output that have completed.
  #writesDone = 0;
  // The bytes of the write in flight and how many of them the output took:
  // shutdown reads them to say what a write stuck in a full pipe loses.
  #inFlight: Uint8Array | undefined;
  #inFlightTaken = 0;
  // The large frame being written slice by slice, and its bytes written by the slices before the one in flight.
  #large: string | JsonParts | undefined;
  #largeTaken = 0;

  constructor(
    out: ByteWriter,
    highWaterMark: number,
    onError: (error: unknown) => void,
    oversize?: OversizeOptions,
  ) {
    this.#out = out;
    this.#highWater = highWaterMark;
    this.#onError = onError;
    this.#oversize = oversize;
  }

  /**
   * Queues one frame (without its newline): a string, or a large reply in
   * pieces. Dropped once the output has failed.
   */
  send(frame: string | JsonParts): void {
    if (this.#failed) return;
    // A string is at most 3 UTF-8 bytes per unit: count bytes only when that could pass the limit.
    const max = this.#oversize?.maxFrameBytes;
    if (max !== undefined && (typeof frame === "string" ? frame.length * 3 : frame.maxBytes) > max) {
      const bytes = frameBytes(frame);
      if (bytes > max) {
        const replacement = typeof frame === "string"
          ? this.#oversize!.replace(frame, bytes)
          : this.#oversize!.replace(frame.head(), bytes, frame.longId());
        if (replacement === undefined) return;
        frame = replacement;
      }
    }
    this.#queue.push(frame);
    this.#queued += unitsOf(frame);
    this.#frames++;
    if (!this.#writing) void this.#pump();
    else if (this.#gathering && this.#early === undefined && this.#queue.length - this.#head === EARLY_FRAMES) {
      this.#writeEarly();
    }
  }

  /** Starts writing what has gathered (small frames, up to one chunk); the pump waits for it before writing more. */
  #writeEarly(): void {
    const first = this.#queue[this.#head];
    if (typeof first !== "string" || first.length > WRITE_CHUNK) return;
    // #writeBatch calls the output's write before it first awaits: the bytes leave in this turn.
    this.#early = this.#writeBatch(first).then((units) => {
      this.#queued -= units;
    });
  }

  /** True when more than the high-water mark is waiting to be written. */
  get congested(): boolean {
    return this.#queued + this.#frames * FRAME_COST > this.#highWater;
  }

  /**
   * True while a write is going out (or gathering) with at least half a pipe's
   * worth of replies queued or in flight, in fewer replies than an early write
   * takes: the read loop lets it finish before reading more. Many smaller
   * replies keep the early write's overlap instead.
   */
  get writingLarge(): boolean {
    return this.#writing && this.#queued >= LARGE_WRITE_UNITS && this.#early === undefined &&
      this.#queue.length - this.#head < EARLY_FRAMES;
  }

  /**
   * How many writes to the output have completed. A write that never
   * completes (a client that does not read its replies) leaves it unchanged.
   */
  get writesDone(): number {
    return this.#writesDone;
  }

  /**
   * What has not reached the output, read at shutdown (it walks the queue):
   * the frames still queued, and those of the write in flight that did not
   * complete. The output may already hold part of that write (a pipe takes
   * what fits), so its frames are at most lost, the last of them cut off.
   * Nothing once the output has failed, which is logged where it fails.
   */
  unsent(): Unsent {
    const unsent = { queuedFrames: 0, queuedBytes: 0, inFlightFrames: 0, inFlightBytes: 0 };
    if (this.#failed) return unsent;
    if (this.#large !== undefined) {
      const size = frameBytes(this.#large);
      unsent.inFlightFrames = 1;
      unsent.inFlightBytes = size + 1 - this.#largeTaken - this.#inFlightTaken;
    } else if (this.#inFlight !== undefined) {
      // Each frame of a batch ends with its newline: one not yet taken is a frame not delivered.
      const rest = this.#inFlight.subarray(this.#inFlightTaken);
      for (const byte of rest) if (byte === 0x0a) unsent.inFlightFrames++;
      unsent.inFlightBytes = rest.length;
    }
    for (let i = this.#head; i < this.#queue.length; i++) {
      const frame = this.#queue[i];
      unsent.queuedFrames++;
      unsent.queuedBytes += frameBytes(frame) + 1;
    }
    return unsent;
  }

  /** True once a write has failed (for example EPIPE: the client is gone). */
  get failed(): boolean {
    return this.#failed;
  }

  /** Resolves when nothing is queued or in flight, or the output failed. */
  idle(): Promise<void> {
    if (!this.#writing && this.#head === this.#queue.length) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async #pump(): Promise<void> {
    this.#writing = true;
    try {
      // No timer: a macrotask would add a loop turn to every reply's latency.
      this.#gathering = true;
      for (let hop = 0; hop < GATHER_HOPS; hop++) await null;
      this.#gathering = false;
      if (this.#early !== undefined) {
        const early = this.#early;
        this.#early = undefined;
        await early;
      }
      while (this.#head < this.#queue.length) {
        const first = this.#queue[this.#head];
        if (typeof first !== "string") {
          this.#queue[this.#head++] = "";
          this.#frames--;
          this.#startLarge(first);
          await this.#writeParts(first);
          this.#large = undefined;
          this.#queued -= first.units;
        } else if (first.length > WRITE_CHUNK) {
          this.#queue[this.#head++] = "";
          this.#frames--;
          this.#startLarge(first);
          await this.#writeLarge(first);
          this.#large = undefined;
          this.#queued -= first.length;
        } else {
          const units = await this.#writeBatch(first);
          this.#queued -= units;
        }
        if (this.#head === this.#queue.length) {
          this.#queue = [];
          this.#head = 0;
        }
      }
    } catch (error) {
      this.#failed = true;
      this.#queue = [];
      this.#head = 0;
      this.#queued = 0;
      this.#frames = 0;
      this.#onError(error);
    } finally {
      this.#writing = false;
      this.#gathering = false;
      this.#early = undefined;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    }
  }

  /** Notes the large frame about to be written, for {@linkcode unsent}: no slice of it is in flight yet. */
  #startLarge(frame: string | JsonParts): void {
    this.#large = frame;
    this.#largeTaken = 0;
    this.#inFlight = undefined;
    this.#inFlightTaken = 0;
  }

  /** Joins string frames from the head of the queue up to one chunk and writes them; returns their units. */
  async #writeBatch(first: string): Promise<number> {
    // Only bytes wait for the write: the joined strings die in #encodeBatch, so a
    // garbage collection while the write is in flight has none of them to copy.
    const { bytes, units } = this.#encodeBatch(first);
    await this.#writeAll(bytes);
    return units;
  }

  /** Takes string frames from the head of the queue up to one chunk and encodes them; returns the bytes and their units. */
  #encodeBatch(first: string): { bytes: Uint8Array; units: number } {
    let end = this.#head + 1;
    let units = first.length;
    while (end < this.#queue.length) {
      const next = this.#queue[end];
      if (typeof next !== "string" || units + next.length > WRITE_CHUNK) break;
      units += next.length;
      end++;
    }
    // The common burst is the whole queue: joined as it is, and replaced rather than cleared.
    const whole = this.#head === 0 && end === this.#queue.length;
    this.#frames -= end - this.#head;
    const frames = whole ? this.#queue : this.#queue.slice(this.#head, end);
    // The last newline joined in, not appended: a string appended to is a rope, which the encoder must flatten first.
    frames.push("");
    const batch = frames.join("\n");
    if (whole) {
      this.#queue = [];
      this.#head = 0;
    } else {
      for (let i = this.#head; i < end; i++) this.#queue[i] = "";
      this.#head = end;
    }
    // Encoded into the one buffer the writer reuses: a new one per write costs page faults once it is large.
    const buffer = this.#slice ??= new Uint8Array(WRITE_CHUNK * 3 + 1);
    const bytes = batch.length * 3 <= buffer.length
      ? buffer.subarray(0, encoder.encodeInto(batch, buffer).written)
      : encoder.encode(batch);
    return { bytes, units };
  }

  /** Writes one large frame and its newline, encoding a slice at a time into one reused buffer. */
  async #writeLarge(frame: string): Promise<void> {
    // Three bytes per unit always fit; the extra byte is the newline.
    const buffer = this.#slice ??= new Uint8Array(WRITE_CHUNK * 3 + 1);
    for (let start = 0; start < frame.length;) {
      let end = Math.min(start + WRITE_CHUNK, frame.length);
      // Never split a surrogate pair between two slices.
      if (end < frame.length && isHighSurrogate(frame.charCodeAt(end - 1))) end--;
      let { written } = encoder.encodeInto(frame.slice(start, end), buffer);
      if (end === frame.length) buffer[written++] = 0x0a;
      await this.#writeAll(buffer.subarray(0, written));
      start = end;
    }
  }

  /** Writes a reply in pieces and its newline, filling one reused buffer; nothing larger than it is ever encoded. */
  async #writeParts(parts: JsonParts): Promise<void> {
    const buffer = this.#slice ??= new Uint8Array(WRITE_CHUNK * 3 + 1);
    let filled = 0;
    for (const piece of parts.pieces()) {
      if (filled + piece.length * 3 > buffer.length) {
        await this.#writeAll(buffer.subarray(0, filled));
        filled = 0;
      }
      filled += encoder.encodeInto(piece, buffer.subarray(filled)).written;
    }
    if (filled === buffer.length) {
      await this.#writeAll(buffer);
      filled = 0;
    }
    buffer[filled++] = 0x0a;
    await this.#writeAll(buffer.subarray(0, filled));
  }

  async #writeAll(bytes: Uint8Array): Promise<void> {
    // A large frame's slices before this one were written whole.
    if (this.#large !== undefined && this.#inFlight !== undefined) this.#largeTaken += this.#inFlightTaken;
    this.#inFlight = bytes;
    this.#inFlightTaken = 0;
    while (this.#inFlightTaken < bytes.length) {
      const offset = this.#inFlightTaken;
      this.#inFlightTaken += await this.#out.write(offset === 0 ? bytes : bytes.subarray(offset));
      this.#writesDone++;
    }
  }
}

function unitsOf(frame: string | JsonParts): number {
  return typeof frame === "string" ? frame.length : frame.units;
}
