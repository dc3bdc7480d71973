import { Dispatcher } from "./_dispatch.ts";
import { type Frame, LineFramer } from "./_frame.ts";
import { logLine } from "./_stderr.ts";
import { type ByteWriter, FrameWriter } from "./_writer.ts";
import type { Middleware } from "./middleware.ts";
import type { Server } from "./server.ts";

/** Where bytes come from: `Deno.stdin`, or an in-memory pipe in tests. */
export interface ByteReader {
  /** Reads into `buffer`; resolves with the count, or null at end of input. */
  read(buffer: Uint8Array): Promise<number | null>;
}

/** The two ends a server is served over. */
export interface ServeIo {
  /** The client's messages (stdin). */
  reader: ByteReader;
  /** Where replies go (stdout). */
  writer: ByteWriter;
}

/** Settings of a served connection; every field has a safe default. */
export interface ServeOptions {
  /**
   * Per-call deadline in milliseconds, unless a tool sets `timeoutMs`.
   * @default {30000}
   */
  timeoutMs?: number;
  /**
   * The most calls in flight; past it a call is refused with a JSON-RPC error.
   * @default {1024}
   */
  maxInFlight?: number;
  /**
   * The largest message accepted, in bytes. A longer line is dropped as it
   * streams and answered with a JSON-RPC error naming this limit.
   * @default {67108864}
   */
  maxMessageBytes?: number;
  /**
   * How long calls in flight may finish at shutdown before they are aborted, in milliseconds.
   * @default {5000}
   */
  shutdownGraceMs?: number;
  /**
   * `ttlMs` of `tools/list` and `server/discover` results in the 2026-07-28 era.
   * @default {0}
   */
  listTtlMs?: number;
  /** Wrap every tool call; the first is outermost. */
  middleware?: readonly Middleware[];
  /**
   * Where diagnostics go, one line each.
   * @default {writes `<server>: <line>` to stderr}
   */
  log?: (line: string) => void;
}

/** A served connection. */
export interface Connection {
  /** Resolves once input ended (or `close()` was called), calls settled and replies were written. */
  readonly closed: Promise<void>;
  /** Stops reading, lets calls finish within the grace period, and resolves when done. */
  close(): Promise<void>;
}

const READ_CHUNK = 64 * 1024;
const WRITE_HIGH_WATER = 16 * 1024 * 1024;
const STOPPED = Symbol("stopped");

/**
 * Serves `server` over a pair of byte streams: newline-delimited JSON-RPC in,
 * replies out. {@linkcode run} calls it with stdin and stdout; tests call it
 * with in-memory pipes so they go through the same framer.
 *
 * @param server The server to serve.
 * @param io The reader and writer.
 * @param options See {@linkcode ServeOptions}.
 * @returns The connection.
 *
 * @example Serve over in-memory pipes
 * ```ts
 * import { Server } from "@forge/toolkit";
 * import { serve } from "@forge/toolkit/stdio";
 *
 * const server = new Server({ name: "demo" });
 * const input = new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
 * let done = false;
 * const reader = { read: (buf: Uint8Array) => Promise.resolve(done ? null : (done = true, buf.set(input), input.length)) };
 * const writer = { write: (bytes: Uint8Array) => Promise.resolve(bytes.length) };
 * await serve(server, { reader, writer }).closed;
 * ```
 */
export function serve(server: Server, io: ServeIo, options: ServeOptions = {}): Connection {
  const log = options.log ?? ((line: string) => logLine(`${server.name}: ${line}`));
  const maxMessageBytes = positive(options.maxMessageBytes, 64 * 1024 * 1024, "maxMessageBytes");
  const grace = positive(options.shutdownGraceMs, 5_000, "shutdownGraceMs");
  // Racing every read against one long-lived "stop" promise would pile a
  // reaction onto it per read (a leak); instead each wait gets its own promise
  // that either the read or a stop request settles.
  let stopping = false;
  let shutdownAt: number | undefined;
  let interrupt: (() => void) | undefined;
  const stopRequested = () => {
    stopping = true;
    interrupt?.();
  };
  const unlessStopped = <T>(work: Promise<T>): Promise<T | typeof STOPPED> => {
    if (stopping) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      interrupt = () => resolve(STOPPED);
      work.then(resolve, reject);
    });
  };
  const writer = new FrameWriter(io.writer, WRITE_HIGH_WATER, (err) => {
    log(`output closed (${err instanceof Error ? err.name : "error"}): stopping`);
    stopRequested();
  });
  const dispatcher = new Dispatcher(server, (frame) => writer.send(frame), {
    timeoutMs: positive(options.timeoutMs, 30_000, "timeoutMs"),
    maxInFlight: positive(options.maxInFlight, 1024, "maxInFlight"),
    maxMessageBytes,
    listTtlMs: options.listTtlMs ?? 0,
    middleware: options.middleware ?? [],
    log,
  });

  async function loop(): Promise<void> {
    const framer = new LineFramer(maxMessageBytes);
    // Past the queue bound no new call starts: frames read meanwhile wait here,
    // in order, until the client drains stdout.
    const held: Frame[] = [];
    let next = 0;
    const sink = (frame: Frame) => {
      if (next < held.length || writer.congested) held.push(own(frame));
      else dispatcher.receive(frame);
    };
    // One buffer for every read: complete lines are decoded before the next
    // read, and the framer copies the unfinished tail.
    const buffer = new Uint8Array(READ_CHUNK);
    let ended = false;
    // While congested, one read is still made: it is how the end of input (a
    // client that closed stdin and stopped reading) is noticed.
    let readAhead = false;
    try {
      while (!writer.failed) {
        while (next < held.length && !writer.congested) dispatcher.receive(held[next++]);
        if (next === held.length) (held.length = 0, next = 0);
        if (writer.congested) {
          if (readAhead) {
            if ((await unlessStopped(writer.idle())) === STOPPED) break;
            readAhead = false;
            continue;
          }
          readAhead = true;
        }
        const n = await unlessStopped(io.reader.read(buffer));
        if (n === STOPPED) break;
        if (n === null) {
          ended = true;
          break;
        }
        if (n > 0) framer.push(buffer.subarray(0, n), sink);
      }
    } catch (err) {
      log(`input failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    shutdownAt = performance.now();
    if (ended) framer.end(sink);
    while (next < held.length && !writer.congested && !writer.failed) dispatcher.receive(held[next++]);
    if (next < held.length) log(`${held.length - next} requests not served: the client stopped reading stdout`);
    dispatcher.stop();
    await dispatcher.drain(grace);
    // A client that stopped reading must not hold shutdown: the replies get
    // what is left of one second past the grace period.
    await within(writer.idle(), shutdownAt + grace + FLUSH_MS - performance.now());
  }

  const closed = loop();
  const connection: Connection = {
    closed,
    close() {
      stopRequested();
      return closed;
    },
  };
  connections.set(connection, () => shutdownAt);
  return connection;
}

/** A frame that outlives the read: its bytes copied out of the read buffer. */
function own(frame: Frame): Frame {
  return frame.kind === "line" ? { kind: "line", bytes: frame.bytes.slice(), text: frame.text } : frame;
}

/** How long the last replies may take to reach stdout once calls are settled at shutdown, in milliseconds. */
export const FLUSH_MS = 1_000;

const connections = new WeakMap<Connection, () => number | undefined>();

/** When `connection` began to shut down (a `performance.now()` reading), or undefined while it serves. */
export function shutdownStartedAt(connection: Connection): number | undefined {
  return connections.get(connection)?.();
}

/** Waits for `promise` at most `ms` milliseconds. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, ms))))]);
  clearTimeout(timer);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`Cannot serve: ${name} must be a positive number, got ${String(value).slice(0, 32)}`);
  }
  return value;
}
