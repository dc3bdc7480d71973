// The one loop that reads a byte stream into frames, for serve() and
// StdioTransport alike: one buffer for every read, backpressure from the
// writer (a client that stops reading cannot grow our memory), and a stop
// that abandons a read in progress.

import { type Frame, type FrameSink, LineFramer } from "./_frame.ts";
import type { FrameWriter } from "./_writer.ts";
import { type NativeTimer, startTimer } from "../internal/native_timer.ts";

/** Where bytes come from: `Deno.stdin`, or an in-memory pipe in tests. */
export interface ByteReader {
  /** Reads into `buffer`; resolves with the count, or null at end of input. */
  read(buffer: Uint8Array): Promise<number | null>;
}

/** What a read loop feeds and watches. */
export interface ReadLoopOptions {
  /** The writer whose congestion pauses delivery, and whose failure stops reading. */
  writer: FrameWriter;
  maxMessageBytes: number;
  /** Receives every frame, in order, never while the writer is congested. */
  sink: FrameSink;
  /** Receives a read that failed; reading stops after it. */
  onError: (error: unknown) => void;
  /**
   * How long frames held back under backpressure may wait, once the input
   * ended, for the peer to drain its input (milliseconds): a client that
   * closes its end and then reads its replies is served every request.
   * @default {0}
   */
  heldMs?: number;
  /**
   * How long a read waits for a large write in flight to finish before it
   * starts anyway (milliseconds). Once a wait runs out, reads go on without
   * waiting until a write completes again: a peer that does not read its
   * replies is slowed once per write it leaves stuck, not once per read.
   * @default {100}
   */
  writeWaitMs?: number;
}

/** How a read loop ended. */
export interface ReadEnd {
  /** When reading stopped (a `performance.now()` reading), before the last frames were delivered. */
  stoppedAt: number;
  /** Why: the input ended, or reading was stopped (stop(), a failed read or write). */
  cause: "end" | "stopped";
  /**
   * Frames read but never delivered: the writer stayed congested for
   * `heldMs` after the input ended, or reading was stopped while they waited.
   */
  undelivered: number;
  /** How many waits for a large write in flight ran out before it went out (see ReadLoopOptions.writeWaitMs). */
  writeWaitsRanOut: number;
}

/** A running read loop. */
export interface ReadLoop {
  /** Resolves once reading stopped (end of input, stop(), a failed read or write) and held frames went out. */
  readonly done: Promise<ReadEnd>;
  /** Stops reading, abandoning a read in progress. */
  stop(): void;
}

const READ_CHUNK = 64 * 1024;
/** How many bytes of messages may wait while the writer is congested before reading pauses. */
const HELD_BYTES = 1024 * 1024;
/**
 * How long a read waits, at most, for a large write in flight (see
 * ReadLoopOptions.writeWaitMs). The wait's timer stays armed while waits
 * follow each other and fires once per this long: firing every 5 ms it cost
 * an 8 KiB call ~7 % of its CPU on the benchmark's machine, every 100 ms ~3 %
 * (docs/benchmarks.md, "The hot path against the floor", item 9).
 */
const WRITE_WAIT_MS = 100;
const STOPPED = Symbol("stopped");
const DRAINED = Symbol("drained");

/** Starts reading `reader` into frames until it ends, fails or is stopped. */
export function readLoop(reader: ByteReader, options: ReadLoopOptions): ReadLoop {
  // Racing every read against one long-lived "stop" promise would pile a
  // reaction onto it per read (a leak); instead each wait gets its own promise
  // that either the work or stop() settles.
  let stopped = false;
  let interrupt: (() => void) | undefined;
  const unlessStopped = <T>(work: Promise<T>): Promise<T | typeof STOPPED> => {
    if (stopped) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      interrupt = () => resolve(STOPPED);
      work.then(resolve, reject);
    });
  };

  // DRAINED once the writer is idle, undefined after `ms` milliseconds, STOPPED
  // on stop(): whichever comes first. One timer serves a run of waits: armed
  // by the first, it is not cleared when a wait ends early but left to fire,
  // and re-armed then only for a wait still in progress (a timer per wait cost
  // ~7 µs, near a microsecond per 8 KiB call). A wait that must end before the
  // armed timer fires arms it anew. No timer is left once the loop ends.
  // V8's timer (internal/native_timer.ts): a server's first large reply loads no node:timers.
  let waitTimer: NativeTimer | undefined;
  let timerDue = 0;
  let waitEnds = 0;
  let timeUp: (() => void) | undefined;
  const armWaitTimer = (ms: number) => {
    timerDue = performance.now() + ms;
    waitTimer = startTimer(onWaitTimer, ms);
  };
  const onWaitTimer = () => {
    waitTimer = undefined;
    if (timeUp === undefined) return;
    const left = waitEnds - performance.now();
    if (left > 0) armWaitTimer(left);
    else timeUp();
  };
  // One watcher of the writer's drain at a time, not one per wait: a peer
  // that trickles bytes in while it reads nothing makes a wait of every read,
  // and a waiter left with the writer at each (until it next drains) grew the
  // server by ~16 MB a second. Each wait gets its own promise, which the
  // watcher settles through `onDrained`; the waits follow one another.
  let draining: Promise<void> | undefined;
  let onDrained: (() => void) | undefined;
  const untilDrained = <T>(other: (resolve: (value: T) => void, reject: (err: unknown) => void) => void) => {
    draining ??= options.writer.idle().then(() => {
      draining = undefined;
      onDrained?.();
    });
    return new Promise<T | typeof DRAINED>((resolve, reject) => {
      onDrained = () => resolve(DRAINED);
      other(resolve, reject);
    }).finally(() => (onDrained = undefined));
  };
  const drainedWithin = async (ms: number): Promise<typeof DRAINED | typeof STOPPED | undefined> => {
    waitEnds = performance.now() + ms;
    if (waitTimer !== undefined && timerDue > waitEnds) {
      waitTimer.cancel();
      waitTimer = undefined;
    }
    if (waitTimer === undefined) armWaitTimer(ms);
    try {
      return await unlessStopped(untilDrained<undefined>((resolve) => (timeUp = () => resolve(undefined))));
    } finally {
      timeUp = undefined;
    }
  };
  const writeWaitMs = options.writeWaitMs ?? WRITE_WAIT_MS;

  async function loop(): Promise<ReadEnd> {
    const { writer, sink } = options;
    const framer = new LineFramer(options.maxMessageBytes);
    // Past the writer's bound no new message is delivered: frames read
    // meanwhile wait here, in order, until the peer drains its input.
    const held: Frame[] = [];
    let next = 0;
    let heldBytes = 0;
    const hold = (frame: Frame) => {
      if (next < held.length || writer.congested) {
        held.push(own(frame));
        heldBytes += sizeOf(frame);
      } else sink(frame);
    };
    const deliver = () => {
      const frame = held[next++];
      heldBytes -= sizeOf(frame);
      sink(frame);
    };
    // One buffer for every read: complete lines are delivered before the next
    // read, and the framer copies the unfinished tail.
    const buffer = new Uint8Array(READ_CHUNK);
    let ended = false;
    // While congested, reading goes on, raced against the peer draining its
    // input, until HELD_BYTES of messages wait: that is how the end of input
    // (a peer that closed its end and stopped reading) is noticed, and a peer
    // that sends nothing more is still served once it drains. Past it the
    // rest stays in the pipe: a peer that stops reading cannot grow our memory.
    let reading: Promise<number | null> | undefined;
    // writer.writesDone when a wait for a large write last ran out (-1: none has), and how many ran out.
    let stuckAt = -1;
    let waitsRanOut = 0;
    try {
      while (!writer.failed) {
        while (next < held.length && !writer.congested) deliver();
        if (next === held.length) (held.length = 0, next = 0);
        let n: number | null | typeof STOPPED | typeof DRAINED;
        if (writer.congested) {
          if (heldBytes >= HELD_BYTES && reading === undefined) {
            if ((await unlessStopped(writer.idle())) === STOPPED) break;
            continue;
          }
          const read = reading ??= reader.read(buffer);
          n = await unlessStopped(untilDrained<number | null>((resolve, reject) => read.then(resolve, reject)));
          // Drained: the read stays pending; the next turn takes its result.
          if (n === DRAINED) continue;
        } else {
          // A large write going out: the next read waits for it, as a serial
          // loop's would. Read while it is in flight, the two cost a third more
          // CPU per call (docs/benchmarks.md, "The hot path against the floor",
          // item 8). A write the peer leaves stuck delays the read behind it by
          // writeWaitMs, once: no read waits again until a write completes, and
          // the end of input is still noticed.
          if (reading === undefined && writer.writingLarge && writer.writesDone !== stuckAt) {
            const waited = await drainedWithin(writeWaitMs);
            if (waited === STOPPED) break;
            if (waited === undefined) (stuckAt = writer.writesDone, waitsRanOut++);
            if (writer.congested || writer.failed) continue;
          }
          n = await unlessStopped(reading ?? reader.read(buffer));
        }
        reading = undefined;
        if (n === STOPPED) break;
        if (n === null) {
          ended = true;
          break;
        }
        if (n > 0) framer.push(buffer.subarray(0, n), hold);
      }
    } catch (err) {
      options.onError(err);
    }
    const stoppedAt = performance.now();
    if (ended) framer.end(hold);
    // After the end of input, what is held goes out as the peer drains, for a
    // bounded time; after a stop, only what the writer takes at once.
    const until = stoppedAt + (ended ? options.heldMs ?? 0 : 0);
    while (next < held.length && !writer.failed) {
      if (!writer.congested) {
        deliver();
        continue;
      }
      const left = until - performance.now();
      if (left <= 0 || (await drainedWithin(left)) !== DRAINED) break;
    }
    waitTimer?.cancel();
    return {
      stoppedAt,
      cause: ended ? "end" : "stopped",
      undelivered: held.length - next,
      writeWaitsRanOut: waitsRanOut,
    };
  }

  const done = loop();
  return {
    done,
    stop() {
      stopped = true;
      interrupt?.();
    },
  };
}

// What a held frame costs beside its bytes: the frame and the buffer its bytes
// are copied into. Counted by bytes alone, a million held one-byte lines were
// "1 MiB" and ~530 MB.
const HELD_FRAME_COST = 512;

/** What a held frame keeps, in bytes: its own and its objects'. */
function sizeOf(frame: Frame): number {
  return HELD_FRAME_COST + (frame.kind === "line" ? frame.size : frame.head.length + frame.tail.length);
}

/**
 * A frame that outlives the read: its bytes copied out of the read buffer.
 * Its text is dropped, to be decoded again from the copy: the text of a line
 * of an all-ASCII read is a slice of the whole read's text, and a held slice
 * keeps all of it (a 40-byte call held beside 64 KiB of blank line kept 64 KiB).
 */
function own(frame: Frame): Frame {
  return frame.kind === "line" ? { kind: "line", size: frame.size, bytes: frame.bytes.slice() } : frame;
}
