// What the bridge reads from a JSON-RPC message to route it. Pure: it never
// changes a message, it only classifies one (the line itself is forwarded as
// it came). Kept apart from the I/O so the rules are tested on their own.

/** A JSON-RPC id as a map key: strings and numbers never collide. */
export type IdKey = string;

/** What one message is, as far as routing needs to know. */
export type Kind =
  | { kind: "request"; key: IdKey; method: string; params: Record<string, unknown> | undefined }
  | { kind: "notification"; method: string; params: Record<string, unknown> | undefined }
  | { kind: "response"; key: IdKey | undefined; code: number | undefined }
  | { kind: "batch"; allNotifications: boolean }
  | { kind: "unreadable" };

/** The `_meta` key that names a 2026-07-28 request's protocol version. */
export const META_VERSION = "io.modelcontextprotocol/protocolVersion";
/** The `_meta` key a subscription's notifications carry. */
export const META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";
/** The stateless protocol version, whose HTTP rules the bridge applies. */
export const STATELESS_VERSION = "2026-07-28";

/** The map key of a JSON-RPC id, or undefined for anything that is not a string or number. */
export function keyOf(id: unknown): IdKey | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  return undefined;
}

/** Classifies one parsed JSON value. */
export function classify(value: unknown): Kind {
  if (Array.isArray(value)) {
    return { kind: "batch", allNotifications: value.every((v) => isObject(v) && !("id" in v)) };
  }
  if (!isObject(value)) return { kind: "unreadable" };
  const params = isObject(value.params) ? value.params : undefined;
  if (typeof value.method === "string") {
    if (!("id" in value)) return { kind: "notification", method: value.method, params };
    const key = keyOf(value.id);
    return key === undefined ? { kind: "unreadable" } : { kind: "request", key, method: value.method, params };
  }
  if ("result" in value || "error" in value) {
    const error = isObject(value.error) ? value.error : undefined;
    return { kind: "response", key: keyOf(value.id), code: typeof error?.code === "number" ? error.code : undefined };
  }
  return { kind: "unreadable" };
}

/** Parses a line or body; undefined when it is not JSON. */
export function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request's `_meta`, when it has one. */
export function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return isObject(params?._meta) ? params._meta : undefined;
}

/**
 * The HTTP status of a JSON-RPC error reply under the stateless version's
 * HTTP rules: a malformed request is 400, an unknown method 404, and the
 * protocol's own refusals (header mismatch, missing capability, unsupported
 * version) 400. Anything else, and every reply in the initialize era, is 200.
 */
export function statusOf(code: number | undefined, stateless: boolean): number {
  if (!stateless || code === undefined) return 200;
  if (code === -32601) return 404;
  if ([-32700, -32600, -32602, -32020, -32021, -32022].includes(code)) return 400;
  return 200;
}

/**
 * The value the SEP-2243 `Mcp-Name` header must carry for a request, or
 * undefined when the method has none.
 */
export function nameOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const field = method === "tools/call" || method === "prompts/get"
    ? "name"
    : method === "resources/read"
    ? "uri"
    : method === "tasks/get" || method === "tasks/update" || method === "tasks/cancel"
    ? "taskId"
    : undefined;
  if (field === undefined) return undefined;
  const value = params?.[field];
  return typeof value === "string" ? value : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
