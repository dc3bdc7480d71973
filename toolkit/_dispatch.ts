// Routes decoded messages to the protocol methods of a tools-only server and
// encodes the replies. Quick methods answer synchronously; tools/call runs
// through _call.ts and answers when it settles, in whatever order calls end.

import { type Outcome, runCall } from "./_call.ts";
import { type Call, CallTable } from "./_calls.ts";
import {
  BATCH_VERSION,
  type Envelope,
  envelopeOf,
  implementation,
  LEGACY_VERSIONS,
  META_SERVER,
  META_SUBSCRIPTION,
  META_VERSION,
  MODERN_VERSION,
  negotiateLegacy,
} from "./_era.ts";
import type { Frame, OversizeFrame } from "./_frame.ts";
import {
  classify,
  decodeFrame,
  encodeError,
  encodeNotification,
  encodeResult,
  ErrorCode,
  type Id,
  type Message,
  peekId,
  type RequestMessage,
  type RpcError,
} from "./_jsonrpc.ts";
import { quote } from "./_quote.ts";
import { type Registry, registryOf } from "./_registry.ts";
import type { Middleware } from "./middleware.ts";
import type { ToolResult } from "./result.ts";
import type { Server } from "./server.ts";
import type { ClientInfo, ToolRequest } from "./tool.ts";

/** Dispatcher settings, resolved from run()'s options. */
export interface DispatchOptions {
  timeoutMs: number;
  maxInFlight: number;
  maxMessageBytes: number;
  listTtlMs: number;
  middleware: readonly Middleware[];
  log: (line: string) => void;
}

type Reply = string | undefined | Promise<string | undefined>;
type Params = Record<string, unknown> | undefined;

const lenient = new TextDecoder("utf-8", { fatal: false });
const noProgress: ToolRequest["progress"] = () => {};

/** Serves one stream of messages for one server. */
export class Dispatcher {
  readonly #registry: Registry;
  readonly #send: (frame: string) => void;
  readonly #options: DispatchOptions;
  readonly #calls = new CallTable();
  readonly #serverInfo: Record<string, unknown>;
  readonly #server: Server;
  readonly #listens = new Map<Id, Id>();
  #legacyVersion: string | undefined;
  #legacyClient = { name: "", version: "" };
  #accepting = true;

  constructor(server: Server, send: (frame: string) => void, options: DispatchOptions) {
    this.#server = server;
    this.#registry = registryOf(server);
    this.#send = send;
    this.#options = options;
    this.#serverInfo = { name: server.name, version: server.version };
    if (server.title !== undefined) this.#serverInfo.title = server.title;
    this.#registry.onChange(() => this.#toolsChanged());
  }

  /** Calls in flight. */
  get inFlight(): number {
    return this.#calls.size;
  }

  /** Handles one frame from the framer. */
  receive(frame: Frame): void {
    if (!this.#accepting) return;
    if (frame.kind === "oversize") {
      this.#send(this.#oversize(frame));
      return;
    }
    const msg = decodeFrame(frame.bytes, frame.text);
    this.#deliver(msg.kind === "batch" ? this.#batch(msg.items) : this.#handle(msg));
  }

  /** Stops taking new messages; calls in flight go on. */
  stop(): void {
    this.#accepting = false;
  }

  /**
   * Lets calls in flight finish for up to `graceMs`, then aborts the rest
   * (they answer "shutting down") and ends open subscriptions.
   */
  async drain(graceMs: number): Promise<void> {
    this.#accepting = false;
    if (this.#calls.size > 0) await within(this.#calls.settledAll(), graceMs);
    if (this.#calls.size > 0) {
      this.#calls.abortAll("shutdown", new DOMException("Server is shutting down", "AbortError"));
      await within(this.#calls.settledAll(), 250);
    }
    for (const id of this.#listens.values()) {
      this.#send(encodeResult(id, { resultType: "complete", _meta: { [META_SUBSCRIPTION]: id } }));
    }
    this.#listens.clear();
    this.#calls.dispose();
  }

  #deliver(reply: Reply): void {
    if (reply === undefined) return;
    if (typeof reply === "string") this.#send(reply);
    else reply.then((r) => r !== undefined && this.#send(r));
  }

  #handle(msg: Message): Reply {
    switch (msg.kind) {
      case "request":
        return this.#request(msg);
      case "notification":
        this.#notification(msg.method, msg.params);
        return undefined;
      case "invalid":
        return encodeError(msg.id, msg.error);
      case "batch":
        return encodeError(null, { code: ErrorCode.invalidRequest, message: "Invalid request: nested batch" });
      case "response":
        return undefined;
    }
  }

  #batch(items: unknown[]): Reply {
    if (this.#legacyVersion !== BATCH_VERSION) {
      const version = this.#legacyVersion ?? "none negotiated";
      return encodeError(null, {
        code: ErrorCode.invalidRequest,
        message:
          `Invalid request: JSON-RPC batches are not part of protocol version ${version}; send one message per line`,
      });
    }
    const replies = items.map((item) => this.#handle(classify(item)));
    return Promise.all(replies).then((all) => {
      const frames = all.filter((r): r is string => r !== undefined);
      return frames.length === 0 ? undefined : `[${frames.join(",")}]`;
    });
  }

  #oversize(frame: OversizeFrame): string {
    const id = peekId(lenient.decode(frame.head), lenient.decode(frame.tail));
    const limit = this.#options.maxMessageBytes;
    this.#options.log(`message of ${frame.size} bytes refused: over maxMessageBytes ${limit}`);
    return encodeError(id, {
      code: ErrorCode.invalidRequest,
      message: `Message too large: ${frame.size} bytes exceeds the limit of ${limit} bytes (maxMessageBytes)`,
      data: { size: frame.size, limit },
    });
  }

  #request(msg: RequestMessage): Reply {
    const { id, method } = msg;
    if (Array.isArray(msg.params)) return fail(id, ErrorCode.invalidParams, "Invalid params: must be an object");
    const params = msg.params;
    const envelope = envelopeOf(metaOf(params));
    if (envelope.era === "invalid") return encodeError(id, envelope.error);
    const modern = envelope.era === "modern";
    switch (method) {
      case "initialize":
        return this.#initialize(id, params);
      case "server/discover":
        return encodeResult(id, this.#modern(this.#discovery()));
      case "ping":
        if (modern) {
          return fail(id, ErrorCode.methodNotFound, `Method not found: "ping" is not part of ${MODERN_VERSION}`);
        }
        return encodeResult(id, {});
    }
    if (!modern && this.#legacyVersion === undefined) {
      return encodeError(id, {
        code: ErrorCode.invalidParams,
        message: `Not initialized: send "initialize" first, or put "${META_VERSION}" in _meta (${MODERN_VERSION})`,
        data: { envelope: { key: META_VERSION, problem: "missing" } },
      });
    }
    switch (method) {
      case "tools/list":
        return this.#toolsList(id, params, envelope);
      case "tools/call":
        return this.#toolsCall(id, params, envelope);
      case "subscriptions/listen":
        if (modern) return this.#listen(id, params);
    }
    return fail(id, ErrorCode.methodNotFound, `Method not found: ${quote(method)}`);
  }

  #notification(method: string, params: Params | unknown[]): void {
    if (method === "notifications/cancelled" && params && !Array.isArray(params)) {
      const requestId = params.requestId;
      if (typeof requestId !== "string" && typeof requestId !== "number") return;
      const key = requestId;
      if (this.#listens.delete(key)) return;
      const call = this.#calls.get(key);
      const reason = typeof params.reason === "string" ? params.reason.slice(0, 200) : "cancelled by the client";
      if (call) this.#calls.abort(call, "cancelled", new DOMException(reason, "AbortError"));
    }
    // notifications/initialized and anything else need no action.
  }

  #initialize(id: Id, params: Params): Reply {
    const version = negotiateLegacy(params?.protocolVersion);
    this.#legacyVersion = version;
    this.#legacyClient = implementation(params?.clientInfo);
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: { tools: { listChanged: true } },
      serverInfo: this.#serverInfo,
    };
    if (this.#server.instructions !== undefined) result.instructions = this.#server.instructions;
    return encodeResult(id, result);
  }

  #discovery(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: [MODERN_VERSION],
      capabilities: { tools: { listChanged: true } },
      ttlMs: this.#options.listTtlMs,
      cacheScope: "private",
    };
    if (this.#server.instructions !== undefined) result.instructions = this.#server.instructions;
    return result;
  }

  #toolsList(id: Id, params: Params, envelope: Envelope): Reply {
    if (params?.cursor !== undefined) return fail(id, ErrorCode.invalidParams, "Invalid params: unknown cursor");
    const tools = this.#registry.list();
    if (envelope.era !== "modern") return encodeResult(id, { tools });
    return encodeResult(id, this.#modern({ tools, ttlMs: this.#options.listTtlMs, cacheScope: "private" }));
  }

  #toolsCall(id: Id, params: Params, envelope: Envelope): Reply {
    const name = params?.name;
    if (typeof name !== "string") return fail(id, ErrorCode.invalidParams, 'Invalid params: "name" must be a string');
    const entry = this.#registry.tools.get(name);
    if (!entry) return fail(id, ErrorCode.invalidParams, `Unknown tool: ${quote(name)}`);
    const args = params?.arguments ?? {};
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      return fail(id, ErrorCode.invalidParams, 'Invalid params: "arguments" must be an object');
    }
    const key = id; // a Map keeps 1 and "1" apart, as JSON-RPC does
    if (this.#calls.has(key)) {
      return fail(id, ErrorCode.invalidRequest, `Invalid request: id ${quote(id)} is already used by a call in flight`);
    }
    const max = this.#options.maxInFlight;
    if (this.#calls.size >= max) {
      return fail(id, ErrorCode.serverBusy, `Server busy: ${max} calls in flight (maxInFlight); retry later`);
    }
    const call = this.#calls.open(key, entry.tool.timeoutMs ?? this.#options.timeoutMs);
    const meta = metaOf(params) ?? {};
    const modern = envelope.era === "modern";
    const client: ClientInfo = modern
      ? { ...envelope.client, protocolVersion: MODERN_VERSION }
      : { ...this.#legacyClient, protocolVersion: this.#legacyVersion ?? LEGACY_VERSIONS[0] };
    const token = meta.progressToken;
    const progress = typeof token === "string" || typeof token === "number"
      ? this.#progress(token, key, call)
      : noProgress;
    const outcome = runCall({
      entry,
      args: args as Record<string, unknown>,
      meta,
      id,
      client,
      call,
      middleware: this.#options.middleware,
      progress,
      log: this.#options.log,
    });
    // A synchronous tool's outcome is ready now: answer in this turn.
    if (!(outcome instanceof Promise)) return this.#finish(call, id, outcome, modern);
    const settled = outcome.then((done) => this.#finish(call, id, done, modern));
    call.settled = settled;
    return settled;
  }

  #finish(call: Call, id: Id, outcome: Outcome, modern: boolean): string | undefined {
    this.#calls.close(call);
    if (outcome.kind === "none") return undefined;
    if (outcome.kind === "error") return encodeError(id, outcome.error);
    return this.#encodeToolResult(id, outcome.result, modern);
  }

  #encodeToolResult(id: Id, result: ToolResult, modern: boolean): string {
    try {
      return encodeResult(id, modern ? this.#modern(result as unknown as Record<string, unknown>) : result);
    } catch (err) {
      this.#options.log(`result of request ${String(id)} cannot be serialised: ${String(err)}`);
      return encodeError(id, {
        code: ErrorCode.internalError,
        message: "Internal error: the result cannot be serialised",
      });
    }
  }

  #progress(token: string | number, key: Id, call: Call): ToolRequest["progress"] {
    let last = -Infinity;
    return (progress, total, message) => {
      if (this.#calls.get(key) !== call || !Number.isFinite(progress) || progress <= last) return;
      last = progress;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (typeof total === "number" && Number.isFinite(total)) params.total = total;
      if (typeof message === "string") params.message = message;
      this.#send(encodeNotification("notifications/progress", params));
    };
  }

  #listen(id: Id, params: Params): Reply {
    const wanted = params?.notifications as Record<string, unknown> | undefined;
    const notifications = wanted?.toolsListChanged === true ? { toolsListChanged: true } : {};
    if (notifications.toolsListChanged) this.#listens.set(id, id);
    this.#send(encodeNotification("notifications/subscriptions/acknowledged", {
      notifications,
      _meta: { [META_SUBSCRIPTION]: id },
    }));
    if (notifications.toolsListChanged) return undefined;
    return encodeResult(id, { resultType: "complete", _meta: { [META_SUBSCRIPTION]: id } });
  }

  #toolsChanged(): void {
    if (this.#legacyVersion !== undefined) this.#send(encodeNotification("notifications/tools/list_changed"));
    for (const id of this.#listens.values()) {
      this.#send(encodeNotification("notifications/tools/list_changed", { _meta: { [META_SUBSCRIPTION]: id } }));
    }
  }

  /** Adds what every 2026-07-28 result carries. */
  #modern(result: Record<string, unknown>): Record<string, unknown> {
    const meta = result._meta as Record<string, unknown> | undefined;
    return { ...result, resultType: "complete", _meta: { ...meta, [META_SERVER]: this.#serverInfo } };
  }
}

function metaOf(params: Params): Record<string, unknown> | undefined {
  const meta = params?._meta;
  return meta !== null && typeof meta === "object" && !Array.isArray(meta)
    ? meta as Record<string, unknown>
    : undefined;
}

function fail(id: Id, code: number, message: string): string {
  const error: RpcError = { code, message };
  return encodeError(id, error);
}

/** Waits for `promise` at most `ms` milliseconds. */
async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}
