// The one serialized writer to stdout. Messages queue as strings; whatever
// queues while a write is in flight goes out in the next write, so a burst of
// replies costs one syscall, not one each. The first write of a burst waits
// a few microtask hops: the calls of one read finish within a hop or two of
// each other, so they share it too. The reader checks `congested` and
// waits on `drain()` so a client that stops reading cannot grow our memory.

const encoder = new TextEncoder();
// How many microtask hops the first write of a burst waits for more replies
// (measured: 1 to 32 gather the same; each hop costs well under a microsecond).
const GATHER_HOPS = 4;

/** Where frames go: `Deno.stdout`, or an in-memory pipe in tests. */
export interface ByteWriter {
  /** Writes some of `bytes`; resolves with how many were written. */
  write(bytes: Uint8Array): Promise<number>;
}

/** Serialised, batching, backpressured writer of newline-terminated frames. */
export class FrameWriter {
  readonly #out: ByteWriter;
  readonly #highWater: number;
  readonly #onError: (error: unknown) => void;
  #queue: string[] = [];
  #queued = 0;
  #writing = false;
  #failed = false;
  #waiters: (() => void)[] = [];

  constructor(out: ByteWriter, highWaterMark: number, onError: (error: unknown) => void) {
    this.#out = out;
    this.#highWater = highWaterMark;
    this.#onError = onError;
  }

  /** Queues one frame (without its newline). Dropped once the output has failed. */
  send(frame: string): void {
    if (this.#failed) return;
    this.#queue.push(frame);
    this.#queued += frame.length;
    if (!this.#writing) void this.#pump();
  }

  /** True when more than the high-water mark is waiting to be written. */
  get congested(): boolean {
    return this.#queued > this.#highWater;
  }

  /** True once a write has failed (for example EPIPE: the client is gone). */
  get failed(): boolean {
    return this.#failed;
  }

  /** Resolves when nothing is queued or in flight, or the output failed. */
  idle(): Promise<void> {
    if (!this.#writing && this.#queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  async #pump(): Promise<void> {
    this.#writing = true;
    try {
      // No timer: a macrotask would add a loop turn to every reply's latency.
      for (let hop = 0; hop < GATHER_HOPS; hop++) await null;
      while (this.#queue.length > 0) {
        const batch = this.#queue.length === 1 ? this.#queue[0] + "\n" : this.#queue.join("\n") + "\n";
        this.#queue = [];
        this.#queued = 0;
        const bytes = encoder.encode(batch);
        let offset = 0;
        while (offset < bytes.length) {
          offset += await this.#out.write(offset === 0 ? bytes : bytes.subarray(offset));
        }
      }
    } catch (error) {
      this.#failed = true;
      this.#queue = [];
      this.#queued = 0;
      this.#onError(error);
    } finally {
      this.#writing = false;
      const waiters = this.#waiters;
      this.#waiters = [];
      for (const wake of waiters) wake();
    }
  }
}
