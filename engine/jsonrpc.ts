// Decodes one frame into a JSON-RPC message and encodes replies. Pure: no I/O,
// so it is tested against hostile input directly. A bad frame never throws; it
// becomes an `invalid` message that carries the reply to send.

import { isAscii, parseLargeLine } from "./_large_line.ts";
import { ExactNumber, type Id, inexact, isId } from "./id.ts";
import { type NumberSources, numberSources } from "./_number_sources.ts";

/** JSON-RPC and MCP error codes the toolkit sends. */
export const ErrorCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /**
   * Implementation-defined (-32000…-32019), sent in the initialize era only,
   * where the SDK v1 clients expect them; _era_errors.ts has the 2026-07-28 answers.
   */
  requestTimeout: -32001,
  serverBusy: -32003,
  shuttingDown: -32004,
  /** MCP 2026-07-28: the request needs a client capability its `_meta` did not declare. */
  missingRequiredClientCapability: -32021,
  /** MCP 2026-07-28: the request's protocol version is not supported. */
  unsupportedProtocolVersion: -32022,
} as const;

/** A JSON-RPC error object. */
export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** A request: has an id and expects exactly one reply. */
export interface RequestMessage {
  kind: "request";
  id: Id;
  method: string;
  params: Record<string, unknown> | unknown[] | undefined;
}

/** A notification: no id, never answered. */
export interface NotificationMessage {
  kind: "notification";
  method: string;
  params: Record<string, unknown> | unknown[] | undefined;
}

/**
 * A reply from the client to a request of ours (`elicitation/create`,
 * `roots/list`…), routed by its id: its result, its error, or the problem
 * that makes it neither (a response is never answered, so the request it
 * answers is failed with that problem instead).
 */
export interface ResponseMessage {
  kind: "response";
  /** Null when the client could not name the request it answers (`"id": null`, or no id): it is dropped. */
  id: Id | null;
  result?: unknown;
  error?: RpcError;
  problem?: string;
}

/** An array of messages (JSON-RPC batch); whether it is allowed depends on the protocol version. */
export interface BatchMessage {
  kind: "batch";
  items: unknown[];
}

/** A frame that cannot be served, with the reply it gets (`id` null when unreadable). */
export interface InvalidMessage {
  kind: "invalid";
  id: Id | null;
  error: RpcError;
}

/** Everything a frame can decode to. */
export type Message = RequestMessage | NotificationMessage | ResponseMessage | BatchMessage | InvalidMessage;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
// The lenient decoder takes Deno's fast path; only a line that decodes to a
// replacement character is decoded again, strictly, to tell bad bytes from a
// U+FFFD the client really sent.
const fast = new TextDecoder("utf-8", { ignoreBOM: false });

/**
 * A line longer than this that is not known to be ASCII is parsed without its
 * whole text ({@linkcode parseLargeLine}): decoding it whole would need a
 * transient as large as its (possibly two-byte) text.
 */
const LARGE_LINE_BYTES = 1024 * 1024;

/** A frame parsed as JSON, before its JSON-RPC shape is checked. */
export interface ParsedFrame {
  kind: "parsed";
  value: unknown;
}

/**
 * Decodes a line of bytes as UTF-8 (unless the framer already has it as ASCII
 * text), then JSON. `release` is called once the bytes are decoded, before
 * JSON.parse: a large line's bytes and its parsed value are never held at once.
 */
export function parseFrame(bytes: Uint8Array, ascii?: string, release?: () => void): ParsedFrame | InvalidMessage {
  // A large line that is all ASCII decodes to one byte per character and needs no care: the piecewise path costs
  // each of its long strings an object, so a 10 MB message of 65-byte strings peaked at 160 MiB there, 82 here.
  if (ascii === undefined && bytes.length > LARGE_LINE_BYTES && isAscii(bytes)) ascii = fast.decode(bytes);
  if (ascii === undefined && bytes.length > LARGE_LINE_BYTES) {
    const large = parseLargeLine(bytes, release);
    if ("invalid" in large) {
      return large.invalid === "utf8"
        ? invalid(null, ErrorCode.parseError, "Parse error: the message is not valid UTF-8")
        : invalid(null, ErrorCode.parseError, "Parse error: the message is not valid JSON");
    }
    return { kind: "parsed", value: withExactNumbers(large.value, large.text) };
  }
  let text = ascii ?? fast.decode(bytes);
  if (ascii === undefined && text.includes("\uFFFD")) {
    try {
      text = utf8.decode(bytes);
    } catch {
      return invalid(null, ErrorCode.parseError, "Parse error: the message is not valid UTF-8");
    }
  }
  release?.();
  return parseText(text);
}

/** Parses a line already decoded, as {@linkcode parseFrame} parses the text of one. */
export function parseText(text: string): ParsedFrame | InvalidMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid(null, ErrorCode.parseError, "Parse error: the message is not valid JSON");
  }
  return { kind: "parsed", value: withExactNumbers(value, text) };
}

/**
 * `value` with each routing number JavaScript did not read as a safe
 * integer — an `id`, `params.requestId` or `params._meta.progressToken` such
 * as `1.50`, `-0`, `1e400`, 2^53 + 1 — replaced by an {@linkcode ExactNumber}
 * of its source text, read from `text` by a scanner that builds nothing else.
 * A number read as a safe integer stays that number, whatever its notation
 * (`1.0` is 1, `1e-400` is 0): telling those apart would cost every call a
 * look at its text.
 */
function withExactNumbers(value: unknown, text: string): unknown {
  if (Array.isArray(value)) {
    if (!value.some(inexactRouting)) return value;
    const sources = numberSources(text);
    for (let i = 0; i < value.length; i++) exactify(value[i], sources[i]);
    return value;
  }
  if (inexactRouting(value)) exactify(value, numberSources(text)[0]);
  return value;
}

interface RoutedMessage {
  id?: unknown;
  params?: { requestId?: unknown; _meta?: { progressToken?: unknown } };
}

/** Whether a message has a routing number that is not a safe integer. */
function inexactRouting(item: unknown): boolean {
  if (item === null || typeof item !== "object") return false;
  const msg = item as RoutedMessage;
  if (inexact(msg.id)) return true;
  const params = msg.params;
  if (params === null || typeof params !== "object") return false;
  const meta = params._meta;
  return inexact(params.requestId) || (meta !== null && typeof meta === "object" && inexact(meta.progressToken));
}

/** Replaces each routing number of `msg` whose source text is not how JavaScript writes it. */
function exactify(msg: unknown, sources: NumberSources | undefined): void {
  if (msg === null || typeof msg !== "object" || sources === undefined) return;
  const m = msg as Record<string, unknown>;
  asWritten(m, "id", sources.id);
  const params = m.params as Record<string, unknown> | null;
  if (params === null || typeof params !== "object") return;
  asWritten(params, "requestId", sources.requestId);
  const meta = params._meta as Record<string, unknown> | null;
  if (meta !== null && typeof meta === "object") asWritten(meta, "progressToken", sources.progressToken);
}

/** Puts the source text in place of `holder[key]` when that is a number, not a safe integer, written otherwise. */
function asWritten(holder: Record<string, unknown>, key: string, source: string | undefined): void {
  const parsed = holder[key];
  if (inexact(parsed) && source !== undefined && source !== String(parsed)) holder[key] = ExactNumber.of(source);
}

/** Decodes a line of bytes: UTF-8, then JSON, then the JSON-RPC shape; `release` as for {@linkcode parseFrame}. */
export function decodeFrame(bytes: Uint8Array, ascii?: string, release?: () => void): Message {
  return messageOf(parseFrame(bytes, ascii, release));
}

/** The message a parsed frame holds: a batch, or one message whose JSON-RPC shape is checked. */
export function messageOf(parsed: ParsedFrame | InvalidMessage): Message {
  if (parsed.kind === "invalid") return parsed;
  const value = parsed.value;
  if (Array.isArray(value)) {
    if (value.length === 0) return invalid(null, ErrorCode.invalidRequest, "Invalid request: empty batch");
    return { kind: "batch", items: value };
  }
  return classify(value);
}

/** Checks the JSON-RPC 2.0 shape of one parsed message. */
export function classify(value: unknown): Message {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return invalid(null, ErrorCode.invalidRequest, "Invalid request: a message must be a JSON object");
  }
  const msg = value as Record<string, unknown>;
  const hasId = Object.hasOwn(msg, "id");
  const rawId = msg.id;
  const id = isId(rawId) ? rawId : null;
  if (msg.jsonrpc !== "2.0") {
    // A response is never answered, a malformed one neither: it fails the request it answers (if its id names one).
    if (msg.method === undefined && isResponse(msg)) {
      return { kind: "response", id, problem: '"jsonrpc" must be "2.0"' };
    }
    return invalid(id, ErrorCode.invalidRequest, 'Invalid request: "jsonrpc" must be "2.0"');
  }
  // A response is never answered, one without an id too: JSON-RPC 2.0 gives an error response `"id": null` when
  // the request's id could not be read, and MCP's schema lets an error response leave its id out. Answered, a
  // client that answers what it cannot read the same way would trade errors with the server without end.
  if (msg.method === undefined && (rawId === undefined || rawId === null) && isResponse(msg)) {
    return responseOf(null, msg);
  }
  if (hasId && !isId(rawId)) {
    // Nor is one whose id no request can have: it names none, as one without an id.
    if (msg.method === undefined && isResponse(msg)) {
      return { kind: "response", id: null, problem: '"id" must be a string or a number' };
    }
    return invalid(null, ErrorCode.invalidRequest, 'Invalid request: "id" must be a string or a number');
  }
  const method = msg.method;
  if (method === undefined) {
    if (hasId && isResponse(msg)) return responseOf(rawId as Id, msg);
    return invalid(id, ErrorCode.invalidRequest, 'Invalid request: "method" is missing');
  }
  if (typeof method !== "string" || method.length === 0) {
    return invalid(id, ErrorCode.invalidRequest, 'Invalid request: "method" must be a non-empty string');
  }
  const params = msg.params;
  if (params !== undefined && (params === null || typeof params !== "object")) {
    return invalid(id, ErrorCode.invalidRequest, 'Invalid request: "params" must be an object');
  }
  const p = params as Record<string, unknown> | unknown[] | undefined;
  if (!hasId) return { kind: "notification", method, params: p };
  return { kind: "request", id: rawId as Id, method, params: p };
}

/**
 * A response: an error when `error` is an object, else its `result`. JSON-RPC 2.0 has exactly one of the two, but
 * some libraries write `"error": null` beside a result: that is a success, as the null says.
 */
function responseOf(id: Id | null, msg: Record<string, unknown>): ResponseMessage {
  const error = msg.error;
  if (error !== null && typeof error === "object" && !Array.isArray(error)) {
    return { kind: "response", id, error: error as RpcError };
  }
  if (error !== undefined && error !== null) {
    return { kind: "response", id, problem: '"error" must be an object with "code" and "message"' };
  }
  if (!Object.hasOwn(msg, "result")) return { kind: "response", id, problem: 'it has neither "result" nor "error"' };
  return { kind: "response", id, result: msg.result };
}

/** Whether a message without a method is a response: it has a `result` or an `error`. */
function isResponse(msg: Record<string, unknown>): boolean {
  return Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error");
}

function invalid(id: Id | null, code: number, message: string): InvalidMessage {
  return { kind: "invalid", id, error: { code, message } };
}

/**
 * Serialises an error reply as one string, for the frames refused before
 * dispatch (their ids are null or read from a frame's head). The engine's
 * replies go through `encodeErrorReply()` in json_parts.ts, which writes the
 * same bytes for any id short enough to be one string (json_parts_test pins
 * it) and keeps a long one in pieces.
 */
export function encodeError(id: Id | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** Serialises a notification. */
export function encodeNotification(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
}
