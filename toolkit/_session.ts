// What one stream has negotiated, and how each era's results are shaped. A
// legacy client picks its version once with `initialize`; a 2026-07-28
// request carries its own envelope (read by _era.ts), so that era keeps no
// state here.

import {
  type Envelope,
  implementation,
  LEGACY_VERSIONS,
  META_SERVER,
  MODERN_VERSION,
  negotiateLegacy,
} from "./_era.ts";
import type { Server } from "./server.ts";
import type { ClientInfo } from "./tool.ts";

type Params = Record<string, unknown> | undefined;

/** The era state of one stream, with the server's identity. */
export class Session {
  readonly #server: Server;
  readonly #serverInfo: Record<string, unknown>;
  readonly #listTtlMs: number;
  #legacyVersion: string | undefined;
  #legacyClient = { name: "", version: "" };
  /** What `initialize` declared, and the roots it answered until it says they changed. */
  readonly legacy: { capabilities: Record<string, unknown> | undefined; roots: unknown; rootsGeneration: number } = {
    capabilities: undefined,
    roots: undefined,
    rootsGeneration: 0,
  };

  /** The client said its roots changed (`notifications/roots/list_changed`): the kept answer is dropped. */
  rootsChanged(): void {
    this.legacy.roots = undefined;
    this.legacy.rootsGeneration++;
  }

  constructor(server: Server, listTtlMs: number) {
    this.#server = server;
    this.#listTtlMs = listTtlMs;
    this.#serverInfo = { name: server.name, version: server.version };
    if (server.title !== undefined) this.#serverInfo.title = server.title;
  }

  /** The version `initialize` settled on; undefined until a client sent one. */
  get legacyVersion(): string | undefined {
    return this.#legacyVersion;
  }

  /** Answers `initialize`: settles the legacy version and remembers the client. */
  initialize(params: Params): Record<string, unknown> {
    const version = negotiateLegacy(params?.protocolVersion);
    this.#legacyVersion = version;
    this.#legacyClient = implementation(params?.clientInfo);
    const caps = params?.capabilities;
    this.legacy.capabilities = caps !== null && typeof caps === "object" && !Array.isArray(caps)
      ? caps as Record<string, unknown>
      : undefined;
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
      supportedVersions: [MODERN_VERSION],
      capabilities,
      ttlMs: this.#listTtlMs,
      cacheScope: "private",
    };
    if (this.#server.instructions !== undefined) result.instructions = this.#server.instructions;
    return this.modern(result);
  }

  /** Answers `tools/list` in the request's era. */
  toolsList(tools: Record<string, unknown>[], envelope: Envelope): Record<string, unknown> {
    if (envelope.era !== "modern") return { tools };
    return this.modern({ tools, ttlMs: this.#listTtlMs, cacheScope: "private" });
  }

  /** The client a handler sees: from the request's envelope, or from `initialize`. */
  client(envelope: Envelope): ClientInfo {
    return envelope.era === "modern"
      ? { ...envelope.client, protocolVersion: MODERN_VERSION }
      : { ...this.#legacyClient, protocolVersion: this.#legacyVersion ?? LEGACY_VERSIONS[0] };
  }

  /** Adds what every 2026-07-28 result carries. */
  modern(result: Record<string, unknown>, resultType = "complete"): Record<string, unknown> {
    const meta = result._meta as Record<string, unknown> | undefined;
    return { ...result, resultType, _meta: { ...meta, [META_SERVER]: this.#serverInfo } };
  }
}
