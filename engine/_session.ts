// What one stream has negotiated, and how each era's results are shaped. A
// session-era client picks its version once with `initialize`; a 2026-07-28
// request carries its own envelope (read by _era.ts), so that era keeps no
// state here.

import {
  type Envelope,
  implementation,
  META_SERVER,
  negotiateSessionVersion,
  SESSION_VERSIONS,
  STATELESS_VERSION,
} from "./_era.ts";
import { encodeReply, fits, type JsonParts, LARGE_UNITS, replyAfterId } from "./json_parts.ts";
import type { Id } from "./id.ts";
import type { Server } from "../toolkit/server.ts";
import type { ClientInfo } from "../toolkit/tool.ts";

type Params = Record<string, unknown> | undefined;

/** The era state of one stream, with the server's identity. */
export class Session {
  readonly #server: Server;
  readonly #serverInfo: Record<string, unknown>;
  // The `_meta` of a result that brings none of its own: one frozen object, serialised with each reply.
  readonly #serverMeta: Readonly<Record<string, unknown>>;
  // What statelessResult() adds to a complete result, as JSON members, for replies spliced without a copy.
  readonly #completeMembers: string;
  readonly #listTtlMs: number;
  #sessionClient = { name: "", version: "" };
  /**
   * The version `initialize` settled on, what it declared, the roots it
   * answered until it says they changed, and whether it said `initialized`.
   */
  readonly handshake: {
    version: string | undefined;
    capabilities: Record<string, unknown> | undefined;
    roots: unknown;
    rootsGeneration: number;
    initialized: ((signal: AbortSignal, owner?: object) => Promise<boolean>) | undefined;
  } = {
    version: undefined,
    capabilities: undefined,
    roots: undefined,
    rootsGeneration: 0,
    initialized: undefined,
  };
  // The calls waiting for `notifications/initialized` to ask their client, each with the call it asks for. A call
  // that ends first leaves the set, cancelled, timed out or answered: a reaction on one shared promise stayed with
  // it, with the call's closures, until the client initialized (never, for a client that does not), ~2.3 KB a call.
  readonly #waitingForInitialized = new Map<(initialized: boolean) => void, object | undefined>();
  // Set once releaseWaiting() ran (the input ended): a wait begun after goes on at once, as no `initialized` can come.
  #released = false;

  /** The client sent `notifications/initialized`: requests to it may go out now. */
  clientInitialized(): void {
    this.handshake.initialized = undefined;
    this.#letWaitingGo();
  }

  /**
   * Lets the calls waiting for `notifications/initialized` go on to ask: at
   * shutdown, where their questions are refused at once (no answer can be
   * read) instead of waiting out the grace period for an `initialized` that
   * can no longer come. The session remembers it: a wait begun after (a
   * handler that asks only now) goes on at once too.
   */
  releaseWaiting(): void {
    this.#released = true;
    this.#letWaitingGo();
  }

  #letWaitingGo(): void {
    const waiting = [...this.#waitingForInitialized.keys()];
    this.#waitingForInitialized.clear();
    for (const go of waiting) go(true);
  }

  /**
   * Ends the waits of `owner`'s questions for `notifications/initialized`
   * (its handler returned without awaiting them): each wait answers false,
   * and its question fails as one of a call that has ended. Returns how many.
   */
  endWaitingOf(owner: object): number {
    let ended = 0;
    for (const [go, of] of this.#waitingForInitialized) {
      if (of !== owner) continue;
      this.#waitingForInitialized.delete(go);
      go(false);
      ended++;
    }
    return ended;
  }

  /** How many calls wait for `notifications/initialized` to ask their client. */
  get waitingForInitialized(): number {
    return this.#waitingForInitialized.size;
  }

  /**
   * Resolves true once the client said `initialized` or the waits were
   * released (at once, after {@linkcode releaseWaiting}), false when `owner`'s
   * waits end first (endWaitingOf()), or rejects with the reason `signal`
   * fires with first.
   */
  #untilInitialized(signal: AbortSignal, owner?: object): Promise<boolean> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.#released) return Promise.resolve(true);
    return new Promise((resolve, reject) => {
      const go = (initialized: boolean) => {
        signal.removeEventListener("abort", abort);
        resolve(initialized);
      };
      const abort = () => {
        this.#waitingForInitialized.delete(go);
        reject(signal.reason);
      };
      this.#waitingForInitialized.set(go, owner);
      signal.addEventListener("abort", abort, { once: true });
    });
  }

  /** The client said its roots changed (`notifications/roots/list_changed`): the kept answer is dropped. */
  rootsChanged(): void {
    this.handshake.roots = undefined;
    this.handshake.rootsGeneration++;
  }

  constructor(server: Server, listTtlMs: number) {
    this.#server = server;
    this.#listTtlMs = listTtlMs;
    this.#serverInfo = { name: server.name, version: server.version };
    if (server.title !== undefined) this.#serverInfo.title = server.title;
    this.#serverMeta = Object.freeze({ [META_SERVER]: this.#serverInfo });
    this.#completeMembers = `"resultType":"complete","_meta":${JSON.stringify(this.#serverMeta)}`;
  }

  /** The version `initialize` settled on; undefined until a client sent one. */
  get sessionVersion(): string | undefined {
    return this.handshake.version;
  }

  /** Answers `initialize`: settles the session's version and remembers the client. */
  initialize(params: Params): Record<string, unknown> {
    const version = negotiateSessionVersion(params?.protocolVersion);
    this.handshake.version = version;
    this.#sessionClient = implementation(params?.clientInfo);
    const caps = params?.capabilities;
    this.handshake.capabilities = caps !== null && typeof caps === "object" && !Array.isArray(caps)
      ? caps as Record<string, unknown>
      : undefined;
    // The lifecycle: no request to the client before it says `initialized`. A second `initialize` before it
    // keeps the calls already waiting: the one `initialized` releases them all.
    this.handshake.initialized ??= (signal, owner) => this.#untilInitialized(signal, owner);
    this.rootsChanged();
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: { tools: { listChanged: true } },
      serverInfo: this.#serverInfo,
    };
    if (this.#server.instructions !== undefined) result.instructions = this.#server.instructions;
    return result;
  }

  /** Answers `server/discover`, naming the `extensions` the server serves, if any. */
  discovery(extensions?: Record<string, unknown>): Record<string, unknown> {
    const capabilities: Record<string, unknown> = { tools: { listChanged: true } };
    if (extensions !== undefined) capabilities.extensions = extensions;
    const result: Record<string, unknown> = {
      supportedVersions: [STATELESS_VERSION],
      capabilities,
      ttlMs: this.#listTtlMs,
      cacheScope: "private",
    };
    if (this.#server.instructions !== undefined) result.instructions = this.#server.instructions;
    return this.statelessResult(result);
  }

  /** Answers `tools/list` in the request's era. */
  toolsList(tools: Record<string, unknown>[], envelope: Envelope): Record<string, unknown> {
    if (envelope.era !== "stateless") return { tools };
    return this.statelessResult({ tools, ttlMs: this.#listTtlMs, cacheScope: "private" });
  }

  /** The client a handler sees: from the request's envelope, or from `initialize`. */
  client(envelope: Envelope): ClientInfo {
    // A new object per call (a handler may change its own), built without a spread.
    if (envelope.era === "stateless") {
      return { name: envelope.client.name, version: envelope.client.version, protocolVersion: STATELESS_VERSION };
    }
    const { name, version } = this.#sessionClient;
    return { name, version, protocolVersion: this.handshake.version ?? SESSION_VERSIONS[0] };
  }

  /** Adds what every 2026-07-28 result carries. */
  statelessResult(result: Record<string, unknown>, resultType = "complete"): Record<string, unknown> {
    const meta = result._meta as Record<string, unknown> | undefined;
    const _meta = meta === undefined ? this.#serverMeta : { ...meta, [META_SERVER]: this.#serverInfo };
    return { ...result, resultType, _meta };
  }

  /**
   * The reply to request `id` with `result` shaped by {@linkcode statelessResult}, the
   * same bytes. A small complete result that brings neither `resultType` nor
   * `_meta` (most tool results) is not copied: its JSON gets the constant
   * members spliced in before its closing brace.
   */
  statelessReply(
    id: Id,
    result: Record<string, unknown>,
    resultType = "complete",
    maxBytes = Infinity,
  ): string | JsonParts {
    const members = this.#completeMembers;
    if (
      resultType !== "complete" || Array.isArray(result) || Object.hasOwn(result, "_meta") ||
      Object.hasOwn(result, "resultType") || typeof result.toJSON === "function" ||
      fits(result, LARGE_UNITS - members.length) < 0
    ) {
      return encodeReply(id, this.statelessResult(result, resultType), maxBytes);
    }
    const json = JSON.stringify(result);
    const body = json.length === 2 ? `{${members}}` : `${json.slice(0, -1)},${members}}`;
    return replyAfterId(id, `,"result":${body}}`);
  }
}
