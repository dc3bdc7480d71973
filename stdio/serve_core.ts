import { positive } from "../internal/positive_number.ts";
import { Dispatcher } from "../engine/dispatch.ts";
import { encodeError, ErrorCode, messageOf } from "../engine/jsonrpc.ts";
import { idForLog } from "../engine/id.ts";
import { idOfReply } from "../engine/peek_id.ts";
import { encodeErrorReply, frameBytes, type JsonParts } from "../engine/json_parts.ts";
import { oversizeResponseId, requestTooLargeReply } from "./_oversize.ts";
import { parseWithinShape, type ShapeLimits } from "./_shape.ts";
import {
  DEFAULT_MAX_CONTAINERS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_BYTES,
  DEFAULT_MAX_KEY_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_TASKS,
  DEFAULT_MAX_VALUES,
  DEFAULT_SHUTDOWN_GRACE_MS,
  DEFAULT_TASK_POLL_INTERVAL_MS,
  DEFAULT_TASK_TTL_MS,
  DEFAULT_TIMEOUT_MS,
  FLUSH_MS,
  LAST_LOG_MS,
  WRITE_HIGH_WATER,
} from "./_options.ts";
import { type ByteReader, readLoop } from "./_read_loop.ts";
import { takeEarlyStart } from "../internal/startup.ts";
import { logLine } from "../internal/stderr.ts";
import { within } from "../internal/within.ts";
import type { ByteWriter } from "../internal/byte_writer.ts";
import { FrameWriter } from "./_writer.ts";
import type { Middleware } from "../toolkit/middleware.ts";
import type { Server } from "../toolkit/server.ts";

export type { ByteReader } from "./_read_loop.ts";

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
   * Per-call deadline in milliseconds, unless a tool sets `timeoutMs`;
   * it runs from when the call first waits (its handler returns a promise).
   * @default {30000}
   */
  timeoutMs?: number;
  /**
   * The most calls in flight; past it a call is refused with a JSON-RPC error.
   * @default {1024}
   */
  maxInFlight?: number;
  /**
   * The most bytes of requests the calls in flight may hold together, as
   * parsed: a call counts its message's bytes while it waits (its handler
   * returned a promise; a task, while its handler runs), and what its parsed
   * params take in memory beyond them, estimated from above (each object,
   * key, array item, string and boxed number at a fixed cost; a message of
   * 30,000 empty objects takes twenty times its bytes); an item of a batch
   * counts its own text, and an open `subscriptions/listen` its id. Past it a
   * new call is refused as busy, as past `maxInFlight`; one call alone is
   * never refused by it.
   * @default {67108864}
   */
  maxInFlightBytes?: number;
  /**
   * The largest message accepted or sent, in bytes. A longer line is dropped
   * as it streams and answered with a JSON-RPC error naming this limit; a
   * reply that would be longer is replaced by such an error.
   * @default {67108864}
   */
  maxMessageBytes?: number;
  /**
   * How many bytes of replies may wait for the client to read them, each
   * counted with 256 bytes beside its text for its objects. Past it the server
   * starts no new call and holds what it reads (up to 1 MiB of messages, each
   * counted with 512 bytes beside its own, enough to notice the input's end;
   * the rest stays in the pipe)
   * until the client drains stdout; calls already running still have their
   * replies queued, so none is lost. Messages held when the input ends are
   * served as the client drains, within `shutdownGraceMs`.
   * @default {67108864}
   */
  maxQueuedBytes?: number;
  /**
   * The deepest nesting of arrays and objects accepted in a message. A deeper
   * message is refused with `-32600` naming this limit, found by the scan of
   * `maxContainers` before it is parsed, or, on a line too short to need that
   * scan, by a walk of the value it parsed to (a line of `n` bytes nests at
   * most `n / 2` deep, so what it built is bounded by its length).
   * @default {1000}
   */
  maxDepth?: number;
  /**
   * The most arrays and objects one message may hold. Each costs the parsed
   * message tens of bytes for two or three bytes of text, so a message with
   * more is refused with `-32600` naming this limit, found by a scan of its
   * bytes before it is parsed (only a line longer than twice this limit can
   * break it, so a shorter one is not scanned).
   * @default {100000}
   */
  maxContainers?: number;
  /**
   * The most values one message may hold: array items, object keys and
   * object values, counted by the commas and colons between them. Each costs
   * the parsed message up to some ninety bytes for a few bytes of text (60 MB
   * of short strings would grow to some 500 MB), so a message with more is
   * refused with `-32600` naming this limit, found by the same scan as
   * `maxContainers`, before it is parsed (a line of `n` bytes holds at most
   * `n / 2` values, so a shorter one than twice this limit is not scanned).
   * @default {150000}
   */
  maxValues?: number;
  /**
   * The longest object key a message may hold, in bytes as sent (between its
   * quotes, escapes as written): a message with a longer one is refused with
   * `-32600` naming this limit. V8 hashes a key over 16,383 units by its
   * length alone, so many such keys cost `JSON.parse` the square of their
   * number, and it copies a key whole to make it a property name: a line over
   * 1 MiB is scanned for such a key before it is parsed; a shorter one is
   * parsed, its keys looked at, and scanned only when one may be over.
   * @default {16383}
   */
  maxKeyBytes?: number;
  /**
   * How long calls in flight may finish at shutdown before they are aborted, in milliseconds.
   * @default {5000}
   */
  shutdownGraceMs?: number;
  /**
   * The most tasks held at once, running or finished but not yet expired.
   * When full, the oldest task the client cancelled or has seen end makes
   * room; failing that, a call that would become a task is refused with a
   * "Server busy" error.
   * @default {64}
   */
  maxTasks?: number;
  /**
   * The most bytes of finished task results held at once; a result that would
   * pass it fails its task with a "Server busy" error instead of being kept.
   * @default {67108864}
   */
  maxTaskBytes?: number;
  /**
   * The TTL of a task whose tool says `task: true`, in milliseconds: the
   * handler's deadline and how long the result can be fetched, from creation.
   * @default {600000}
   */
  taskTtlMs?: number;
  /**
   * The poll interval suggested to clients in every task, in milliseconds.
   * @default {1000}
   */
  taskPollIntervalMs?: number;
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
  // Serving on the real stdout: an early guard must not divert the replies.
  if (io.writer === Deno.stdout) takeEarlyStart();
  const log = options.log ?? ((line: string) => logLine(`${server.name}: ${line}`));
  const maxMessageBytes = positive(options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES, "maxMessageBytes", "serve");
  const grace = positive(options.shutdownGraceMs, DEFAULT_SHUTDOWN_GRACE_MS, "shutdownGraceMs", "serve");
  const dispatchOptions = {
    timeoutMs: positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs", "serve"),
    maxInFlight: positive(options.maxInFlight, DEFAULT_MAX_IN_FLIGHT, "maxInFlight", "serve"),
    maxInFlightBytes: positive(
      options.maxInFlightBytes,
      DEFAULT_MAX_IN_FLIGHT_BYTES,
      "maxInFlightBytes",
      "serve",
    ),
    maxMessageBytes,
    listTtlMs: options.listTtlMs ?? 0,
    tasks: {
      max: positive(options.maxTasks, DEFAULT_MAX_TASKS, "maxTasks", "serve"),
      maxBytes: positive(options.maxTaskBytes, DEFAULT_MAX_MESSAGE_BYTES, "maxTaskBytes", "serve"),
      ttlMs: positive(options.taskTtlMs, DEFAULT_TASK_TTL_MS, "taskTtlMs", "serve"),
      pollIntervalMs: positive(
        options.taskPollIntervalMs,
        DEFAULT_TASK_POLL_INTERVAL_MS,
        "taskPollIntervalMs",
        "serve",
      ),
      maxMessageBytes,
    },
    middleware: options.middleware ?? [],
    log,
  };
  let shutdownAt: number | undefined;
  const maxDepth = positive(options.maxDepth, DEFAULT_MAX_DEPTH, "maxDepth", "serve");
  const shape: ShapeLimits = {
    maxDepth,
    maxContainers: positive(options.maxContainers, DEFAULT_MAX_CONTAINERS, "maxContainers", "serve"),
    maxValues: positive(options.maxValues, DEFAULT_MAX_VALUES, "maxValues", "serve"),
    maxKeyBytes: positive(options.maxKeyBytes, DEFAULT_MAX_KEY_BYTES, "maxKeyBytes", "serve"),
  };
  const maxQueuedBytes = positive(options.maxQueuedBytes, WRITE_HIGH_WATER, "maxQueuedBytes", "serve");
  const writer = new FrameWriter(io.writer, maxQueuedBytes, (err) => {
    log(`output closed (${err instanceof Error ? err.name : "error"}): stopping`);
    reading.stop();
  }, {
    maxFrameBytes: maxMessageBytes,
    replace: (frame, bytes, longId) => replyTooLargeError(frame, bytes, maxMessageBytes, log, longId),
  });
  const dispatcher = new Dispatcher(server, writer, dispatchOptions);
  // Past the writer's bound no new call starts: the read loop holds what it
  // reads until the client drains stdout.
  const reading = readLoop(io.reader, {
    writer,
    maxMessageBytes,
    sink: (frame) => {
      if (frame.kind === "oversize") {
        // A response is never answered: a client's answer too large to read fails the question it answers instead.
        const response = oversizeResponseId(frame);
        if (response !== undefined) return dispatcher.answerTooLarge(response.id, frame.size, maxMessageBytes);
        log(`message of ${frame.size} bytes refused: over maxMessageBytes ${maxMessageBytes}`);
        writer.send(requestTooLargeReply(frame, maxMessageBytes));
        return;
      }
      const size = frame.size;
      const parsed = parseWithinShape(frame, shape, frame.release);
      if (parsed.kind === "parsed" && dispatcher.receiveCall(parsed.value, size)) return;
      if (parsed.kind !== "refused") dispatcher.receive(messageOf(parsed), size);
      else {
        log(parsed.log);
        writer.send(parsed.reply);
      }
    },
    onError: (err) => log(`input failed: ${err instanceof Error ? err.message : String(err)}`),
    heldMs: grace,
  });

  async function finish(): Promise<void> {
    const end = await reading.done;
    shutdownAt = end.stoppedAt;
    if (end.undelivered > 0) {
      log(
        end.cause === "end"
          ? `${end.undelivered} messages read before the input ended were not served: the client did not read ` +
            `the replies before them within shutdownGraceMs (${grace} ms)`
          : `${end.undelivered} messages read were not served: the server stopped while they waited for the client ` +
            "to read earlier replies",
      );
    }
    dispatcher.stop();
    // The calls share the shutdown's grace period with the messages served after the end of input.
    await dispatcher.drain(Math.max(0, shutdownAt + grace - performance.now()));
    markSettled();
    // A client that stopped reading must not hold shutdown: the replies get
    // what is left of one second past the grace period.
    // The end of the budget is kept for stderr: the line that names the replies lost must get out before the exit.
    await within(writer.idle(), shutdownAt + grace + FLUSH_MS - LAST_LOG_MS - performance.now());
    // The process exits with them: replies built and then given up are named as plainly as messages never served.
    const lost = writer.unsent();
    if (lost.queuedFrames + lost.inFlightFrames > 0) {
      log(
        `replies not delivered at exit: ${lost.queuedFrames} queued (${lost.queuedBytes} bytes), and ` +
          `${lost.inFlightFrames} in a write that did not complete (${lost.inFlightBytes} bytes): the client did not ` +
          `read stdout within shutdownGraceMs (${grace} ms) and ${FLUSH_MS} ms more; the last reply it got may be cut off`,
      );
    }
  }

  let markSettled!: () => void;
  const settled = new Promise<void>((resolve) => (markSettled = resolve));
  const closed = finish();
  const connection: Connection = {
    closed,
    close() {
      reading.stop();
      return closed;
    },
  };
  connections.set(connection, { shutdownAt: () => shutdownAt, settled });
  return connection;
}

/**
 * What is sent instead of a reply over `maxMessageBytes`: an error with the
 * same id that names the limit; when even that is over the limit because of
 * its id (an id of nearly the limit, whose reply adds more than its request
 * did), the error with a null id, saying so. A notification that large is
 * dropped.
 */
function replyTooLargeError(
  frame: string,
  bytes: number,
  limit: number,
  log: (line: string) => void,
  longId?: string,
): string | JsonParts | undefined {
  // A long string id is kept apart from the reply's text, and written as it is in the error.
  const id = longId ?? idOfReply(frame);
  const to = id === null ? "" : ` to request ${idForLog(id)}`;
  log(`reply of ${bytes} bytes${to} not sent: over maxMessageBytes ${limit}`);
  // A notification that large is dropped; a batch's reply fits by construction, but is never dropped silently.
  if (id === null && !frame.startsWith("[")) return undefined;
  const error = {
    code: ErrorCode.internalError,
    message: `Reply too large: ${bytes} bytes exceeds the limit of ${limit} bytes (maxMessageBytes)`,
    data: { size: bytes, limit },
  };
  const reply = encodeErrorReply(id, error);
  if (id === null || frameBytes(reply) <= limit) return reply;
  // Over the limit because of its id: without it, it fits. A limit below any error's own text keeps the id.
  const anonymous = encodeError(null, {
    ...error,
    message: `${error.message}; the request's id is too long to repeat within the limit`,
  });
  if (frameBytes(anonymous) > limit) return reply;
  log(`the error naming the limit${to} is over it too: sent with a null id`);
  return anonymous;
}

// What run() needs of the defaults to bound its own shutdown; it loads this module when it starts.
export { DEFAULT_SHUTDOWN_GRACE_MS, FLUSH_MS, LAST_LOG_MS } from "./_options.ts";

const connections = new WeakMap<Connection, { shutdownAt: () => number | undefined; settled: Promise<void> }>();

/** When `connection` began to shut down (a `performance.now()` reading), or undefined while it serves. */
export function shutdownStartedAt(connection: Connection): number | undefined {
  return connections.get(connection)?.shutdownAt();
}

/**
 * Resolves once a connection's calls are settled at shutdown (answered, or
 * aborted at the end of the grace period), before the last replies have
 * necessarily reached stdout: work that needs no stdout, such as `onClose`,
 * can run while they flush.
 */
export function callsSettled(connection: Connection): Promise<void> {
  return connections.get(connection)?.settled ?? connection.closed;
}
