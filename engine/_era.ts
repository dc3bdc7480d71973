// The two protocol eras. A request that carries
// `_meta["io.modelcontextprotocol/protocolVersion"]` is served under the
// stateless 2026-07-28 rules; anything else belongs to the initialize-based
// session. The era is decided per request, so one stdio stream can serve a
// `server/discover` probe followed by `initialize` (as the Inspector does).

import { ErrorCode, type RpcError } from "./jsonrpc.ts";
import { quote } from "../internal/quote.ts";

/** The stateless protocol version. */
export const STATELESS_VERSION = "2026-07-28";
/** Protocol versions served through `initialize`, newest first. */
export const SESSION_VERSIONS: readonly string[] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];
/** The only session-era version whose stdio transport carries JSON-RPC batches. */
export const BATCH_VERSION = "2025-03-26";

export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT = "io.modelcontextprotocol/clientInfo";
export const META_SERVER = "io.modelcontextprotocol/serverInfo";
export const META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

/**
 * The protocol era a request is served in: `stateless` (2026-07-28, every
 * request carries its own `_meta` envelope) or `session` (the
 * initialize-based versions, one handshake per stream).
 */
export type Era = "stateless" | "session";

/** How one request is to be served. */
export type Envelope =
  | { era: "session" }
  | { era: "stateless"; client: { name: string; version: string }; capabilities: Record<string, unknown> }
  | { era: "invalid"; error: RpcError };

// Every initialize-era request has this one envelope: nothing in it varies.
const SESSION: Envelope = Object.freeze({ era: "session" });

/**
 * Reads a request's era from its `_meta`, which decides first: a protocol
 * version there makes it 2026-07-28; the other 2026-07-28 keys without one
 * are a malformed 2026-07-28 envelope (an initialize-era client sends
 * neither); a `_meta` with none of them is the initialize era.
 */
export function envelopeOf(meta: Record<string, unknown> | undefined): Envelope {
  if (meta === undefined) return SESSION;
  if (!Object.hasOwn(meta, META_VERSION)) {
    return Object.hasOwn(meta, META_CAPABILITIES) || Object.hasOwn(meta, META_CLIENT)
      ? badEnvelope(META_VERSION, "missing")
      : SESSION;
  }
  const version = meta[META_VERSION];
  if (typeof version !== "string") return badEnvelope(META_VERSION, "must be a string");
  if (version !== STATELESS_VERSION) {
    return {
      era: "invalid",
      error: {
        code: ErrorCode.unsupportedProtocolVersion,
        message: `Unsupported protocol version: ${quote(version, 32)}`,
        data: { supported: [STATELESS_VERSION], requested: version.slice(0, 64) },
      },
    };
  }
  const caps = meta[META_CAPABILITIES];
  if (caps === undefined) return badEnvelope(META_CAPABILITIES, "missing");
  if (caps === null || typeof caps !== "object" || Array.isArray(caps)) {
    return badEnvelope(META_CAPABILITIES, "must be an object");
  }
  const client = meta[META_CLIENT];
  const problem = clientProblem(client);
  if (problem !== undefined) return badEnvelope(META_CLIENT, problem);
  return { era: "stateless", client: implementation(client), capabilities: caps as Record<string, unknown> };
}

/** What is wrong with a 2026-07-28 `clientInfo`, if anything: absent is fine, present must be an implementation. */
function clientProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "must be an object";
  const { name, version } = value as Record<string, unknown>;
  if (name !== undefined && typeof name !== "string") return "name must be a string";
  if (version !== undefined && typeof version !== "string") return "version must be a string";
  return undefined;
}

/** The answer to a request whose 2026-07-28 envelope lacks `key` or holds a bad value there. */
export function badEnvelope(key: string, problem: string): Envelope & { era: "invalid" } {
  return {
    era: "invalid",
    error: {
      code: ErrorCode.invalidParams,
      message: `Invalid _meta envelope for protocol version ${STATELESS_VERSION}: ${key}: ${problem}`,
      data: { envelope: { key, problem } },
    },
  };
}

/** A client's `{name, version}`, with empty strings where it said nothing usable (lenient: `initialize` reads it too). */
export function implementation(value: unknown): { name: string; version: string } {
  if (value === null || typeof value !== "object") return { name: "", version: "" };
  const v = value as Record<string, unknown>;
  return {
    name: typeof v.name === "string" ? v.name.slice(0, 256) : "",
    version: typeof v.version === "string" ? v.version.slice(0, 64) : "",
  };
}

/** The session-era version to answer `initialize` with: the client's if we speak it, else our newest. */
export function negotiateSessionVersion(requested: unknown): string {
  return typeof requested === "string" && SESSION_VERSIONS.includes(requested) ? requested : SESSION_VERSIONS[0];
}
