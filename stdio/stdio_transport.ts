import { positive } from "../internal/positive_number.ts";
import type { Frame } from "./_frame.ts";
import { classify, encodeError, ErrorCode } from "../engine/jsonrpc.ts";
import {
  DEFAULT_MAX_CONTAINERS,
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_KEY_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_VALUES,
  DEFAULT_SHUTDOWN_GRACE_MS,
  WRITE_HIGH_WATER,
} from "./_options.ts";
import { oversizeResponseId, requestTooLargeReply } from "./_oversize.ts";
import { type ByteReader, type ReadLoop, readLoop } from "./_read_loop.ts";
import { parseWithinShape, type ShapeLimits } from "./_shape.ts";
import { takeEarlyStart } from "../internal/startup.ts";
import type { ByteWriter } from "../internal/byte_writer.ts";
import { FrameWriter } from "./_writer.ts";

/** A JSON-RPC message as it travels: a parsed JSON object. */
export type JsonRpcMessage = Record<string, unknown>;

/** Options of {@linkcode StdioTransport}. */
export interface StdioTransportOptions {
  /**
   * Where messages come from.
   * @default {Deno.stdin}
   */
  reader?: ByteReader;
  /**
   * Where messages go.
   * @default {Deno.stdout}
   */
  writer?: ByteWriter;
  /**
   * `"server"` answers undecodable and oversize lines with a JSON-RPC error
   * itself (the SDK's protocol layer never sees them); `"client"` reports
   * them through `onerror`. In either role an oversize or malformed response
   * (to a request this side sent) is never answered: it reaches `onmessage`
   * as an error response under its id, so that request fails at once.
   * @default {"server"}
   */
  role?: "server" | "client";
  /**
   * The largest message accepted, in bytes.
   * @default {67108864}
   */
  maxMessageBytes?: number;
  /**
   * The deepest nesting of arrays and objects accepted in a message; a deeper
   * one is refused (`-32600` naming the limit), found as `serve()` finds it.
   * @default {1000}
   */
  maxDepth?: number;
  /**
   * The most arrays and objects one message may hold; a message with more is
   * refused (`-32600` naming the limit) by the same scan, before `JSON.parse`
   * would build them.
   * @default {100000}
   */
  maxContainers?: number;
  /**
   * The most values (array items, object keys and values) one message may
   * hold; a message with more is refused (`-32600` naming the limit) by the
   * same scan, before `JSON.parse` would build them.
   * @default {150000}
   */
  maxValues?: number;
  /**
   * The longest object key one message may hold, in bytes as sent; a message
   * with a longer one is refused (`-32600` naming the limit) as `serve()`
   * refuses it: scanned for before a line over 1 MiB is parsed, looked for in
   * a shorter one once parsed.
   * @default {16383}
   */
  maxKeyBytes?: number;
  /** Sees every complete line read, before decoding (for tests that check what crossed the wire). */
  onLine?: (line: string) => void;
}

const lenient = new TextDecoder("utf-8", { fatal: false });

/**
 * The toolkit's stdio path as an MCP SDK `Transport`: linear-time framing on
 * bytes, size-capped lines, batched writes with backpressure. It fits the
 * official SDK's `Server.connect()` and `Client.connect()` (the types match
 * structurally), so SDK users get a reader that is linear, answers a bad line
 * with `-32700` and an oversize one with an error naming the limit — instead of
 * dropping it and leaving the client waiting.
 *
 * `run()` does not use the SDK at all; this class is for code that does.
 *
 * @example Connect the SDK's Server to stdio through the toolkit's framing
 * ```ts ignore
 * import { Server } from "npm:@modelcontextprotocol/sdk@1.32.2/server/index.js";
 * import { StdioTransport } from "@forge/toolkit/stdio";
 *
 * const server = new Server({ name: "sdk-server", version: "1.0.0" }, { capabilities: { tools: {} } });
 * await server.connect(new StdioTransport());
 * ```
 */
export class StdioTransport {
  /** Called with each decoded message. */
  onmessage?: (message: JsonRpcMessage) => void;
  /** Called once when the stream ends or the transport is closed. */
  onclose?: () => void;
  /** Called with read or write failures and, for clients, undecodable lines. */
  onerror?: (error: Error) => void;

  readonly #reader: ByteReader;
  readonly #writer: FrameWriter;
  readonly #role: "server" | "client";
  readonly #max: number;
  readonly #shape: ShapeLimits;
  readonly #onLine?: (line: string) => void;
  #closed = false;
  #reading: ReadLoop | undefined;

  /**
   * Creates a transport over stdio, or over the given reader and writer.
   *
   * @param options See {@linkcode StdioTransportOptions}.
   * @throws {RangeError} When `maxMessageBytes`, `maxDepth`, `maxContainers`, `maxValues` or `maxKeyBytes` is not a positive number.
   */
  constructor(options: StdioTransportOptions = {}) {
    this.#reader = options.reader ?? Deno.stdin;
    this.#role = options.role ?? "server";
    const action = "create the transport";
    this.#max = positive(options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES, "maxMessageBytes", action);
    this.#shape = {
      maxDepth: positive(options.maxDepth, DEFAULT_MAX_DEPTH, "maxDepth", action),
      maxContainers: positive(options.maxContainers, DEFAULT_MAX_CONTAINERS, "maxContainers", action),
      maxValues: positive(options.maxValues, DEFAULT_MAX_VALUES, "maxValues", action),
      maxKeyBytes: positive(options.maxKeyBytes, DEFAULT_MAX_KEY_BYTES, "maxKeyBytes", action),
    };
    this.#onLine = options.onLine;
    // Writing to the real stdout from now on: an early guard must not divert it.
    if (options.writer === undefined) takeEarlyStart();
    this.#writer = new FrameWriter(options.writer ?? Deno.stdout, WRITE_HIGH_WATER, (err) => {
      this.onerror?.(asError(err));
      void this.close();
    });
  }

  /**
   * Starts reading. Resolves at once; messages arrive through `onmessage`.
   * @returns Resolves when reading has started.
   * @throws {Error} When called twice.
   */
  start(): Promise<void> {
    if (this.#reading) return Promise.reject(new Error("Cannot start the transport: it is already started"));
    this.#reading = readLoop(this.#reader, {
      writer: this.#writer,
      maxMessageBytes: this.#max,
      sink: (frame) => this.#frame(frame),
      onError: (err) => this.onerror?.(asError(err)),
      heldMs: DEFAULT_SHUTDOWN_GRACE_MS,
    });
    void this.#reading.done.then((end) => {
      if (end.undelivered > 0) {
        this.onerror?.(new Error(`Cannot deliver ${end.undelivered} messages: the peer stopped reading`));
      }
      return this.close();
    });
    return Promise.resolve();
  }

  /**
   * Queues one message; resolves once it is handed to the writer.
   * @param message The JSON-RPC message.
   * @returns Resolves when queued (or when the writer is congested, once it drained).
   */
  send(message: JsonRpcMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("Cannot send: the transport is closed"));
    this.#writer.send(JSON.stringify(message));
    return this.#writer.congested ? this.#writer.idle() : Promise.resolve();
  }

  /**
   * Stops reading, flushes what was queued, and calls `onclose` once.
   * @returns Resolves when closed.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#reading?.stop();
    await this.#writer.idle();
    this.onclose?.();
  }

  #frame(frame: Frame): void {
    if (frame.kind === "oversize") {
      const response = oversizeResponseId(frame);
      if (response === undefined) return this.#reject(requestTooLargeReply(frame, this.#max));
      const problem =
        `Message too large: ${frame.size} bytes exceeds the limit of ${this.#max} bytes (maxMessageBytes)`;
      return this.#badResponse(response.id, problem, { size: frame.size, limit: this.#max });
    }
    if (this.#onLine) this.#onLine(frame.text ?? lenient.decode(frame.bytes));
    const parsed = parseWithinShape(frame, this.#shape);
    if (parsed.kind === "refused") {
      this.#reject(parsed.reply);
      return;
    }
    if (parsed.kind === "invalid") {
      this.#reject(encodeError(parsed.id, parsed.error));
      return;
    }
    const values = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
    for (const value of values) {
      const msg = classify(value);
      if (msg.kind === "invalid") this.#reject(encodeError(msg.id, msg.error));
      else if (msg.kind === "response" && msg.problem !== undefined) {
        this.#badResponse(msg.id, `Invalid response: ${msg.problem}`);
      } else this.onmessage?.(value as JsonRpcMessage);
    }
  }

  /**
   * A response that cannot be used (too large, malformed) is never answered:
   * it reaches the protocol layer as an error under its id, so the request it
   * answers fails at once instead of waiting for its timeout; one whose id
   * cannot be read is reported.
   */
  #badResponse(id: unknown, problem: string, data?: Record<string, unknown>): void {
    if (typeof id === "string" || typeof id === "number") {
      const error = { code: ErrorCode.invalidRequest, message: problem, ...(data === undefined ? {} : { data }) };
      this.onmessage?.({ jsonrpc: "2.0", id, error });
    } else this.onerror?.(new Error(`A response was dropped: ${problem}; its id cannot be read`));
  }

  #reject(reply: string): void {
    if (this.#role === "server") this.#writer.send(reply);
    else this.onerror?.(new SyntaxError(`Cannot decode a message from the peer: ${reply.slice(0, 200)}`));
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
