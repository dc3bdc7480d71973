import { Dispatcher } from "./_dispatch.ts";
import { type Frame, LineFramer } from "./_frame.ts";
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
const encoder = new TextEncoder();
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
  const log = options.log ?? ((line: string) => Deno.stderr.writeSync(encoder.encode(`${server.name}: ${line}\n`)));
  const maxMessageBytes = positive(options.maxMessageBytes, 64 * 1024 * 1024, "maxMessageBytes");
  const grace = positive(options.shutdownGraceMs, 5_000, "shutdownGraceMs");
  // Racing every read against one long-lived "stop" promise would pile a
  // reaction onto it per read (a leak); instead each wait gets its own promise
  // that either the read or a stop request settles.
  let stopping = false;
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
    const sink = (frame: Frame) => dispatcher.receive(frame);
    // One buffer for every read: complete lines are decoded before the next
    // read, and the framer copies the unfinished tail.
    const buffer = new Uint8Array(READ_CHUNK);
    let ended = false;
    try {
      while (!writer.failed) {
        if (writer.congested && (await unlessStopped(writer.idle())) === STOPPED) break;
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
    if (ended) framer.end(sink);
    dispatcher.stop();
    await dispatcher.drain(grace);
    await writer.idle();
  }

  const closed = loop();
  return {
    closed,
    close() {
      stopRequested();
      return closed;
    },
  };
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`Cannot serve: ${name} must be a positive number, got ${String(value).slice(0, 32)}`);
  }
  return value;
}
