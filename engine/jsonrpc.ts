// Decodes one frame into a JSON-RPC message and encodes replies. Pure: no I/O,
// so it is tested against hostile input directly. A bad frame never throws; it
// becomes an `invalid` message that carries the reply to send.

import { quote } from "../internal/quote.ts";
import { closingQuote, parseLargeLine } from "./_large_line.ts";
import { type NumberSources, numberSources } from "./_number_sources.ts";

/** A JSON-RPC request id as MCP allows it; a number JavaScript cannot hold exactly keeps its text. */
export type Id = string | number | ExactNumber;

/**
 * A numeric id JavaScript cannot hold exactly (above 2^53, a fraction, an
 * exponent), kept as the text the client sent so that the reply carries it
 * byte for byte. One instance per text while it is in use, so two requests
 * with the same id are still one key in a Map, and two different ones never
 * collide.
 */
export class ExactNumber {
  /** The number as the client wrote it. */
  readonly text: string;

  private constructor(text: string) {
    this.text = text;
  }

  /** The one instance for `text`. */
  static of(text: string): ExactNumber {
    const known = exact.get(text)?.deref();
    if (known) return known;
    const made = new ExactNumber(text);
    exact.set(text, new WeakRef(made));
    forget.register(made, text);
    return made;
  }

  /** Serialised as the original number text. */
  toJSON(): unknown {
    return rawJSON(this.text);
  }

  /** The original number text. */
  toString(): string {
    return this.text;
  }
}

// JSON.rawJSON (V8 11.4+) is missing from TypeScript's lib: it makes JSON.stringify write the text as it is.
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
const exact = new Map<string, WeakRef<ExactNumber>>();
const forget = new FinalizationRegistry<string>((text) => {
  if (exact.get(text)?.deref() === undefined) exact.delete(text);
});

/** The id as handlers and middleware see it: an exact number as its text. */
export function publicId(id: Id): string | number {
  return id instanceof ExactNumber ? id.text : id;
}

/**
 * An id as a log line shows it: a string quoted, escaped and cut short (the
 * client chose it, and it may hold line breaks or be megabytes long), a
 * number as the client wrote it, cut short too.
 */
export function idForLog(id: Id | null): string {
  if (typeof id === "string") return quote(id);
  const text = String(id);
  return text.length <= 64 ? text : `${text.slice(0, 64)}…`;
}

/** A request's `_meta` as handlers and middleware see it: an exact `progressToken` as its text, like ids. */
export function publicMeta(meta: Record<string, unknown>): Record<string, unknown> {
  const token = meta.progressToken;
  return token instanceof ExactNumber ? { ...meta, progressToken: token.text } : meta;
}

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

/** A reply from the client to a request of ours (`elicitation/create`, `roots/list`…), routed by its id. */
export interface ResponseMessage {
  kind: "response";
  id: Id;
  result?: unknown;
  error?: RpcError;
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return invalid(null, ErrorCode.parseError, "Parse error: the message is not valid JSON");
  }
  return { kind: "parsed", value: withExactNumbers(value, text) };
}

/**
 * `value` with each routing number that JSON.parse did not keep as written —
 * an `id`, `params.requestId` or `params._meta.progressToken` that is not a
 * safe integer (`1.50`, `-0`, `1e400`, 2^53 + 1) — replaced by an
 * {@linkcode ExactNumber} of its source text, read from `text` by a scanner
 * that builds nothing else. A safe integer stays a number, whatever its
 * notation (`1.0` is `1`): telling those apart would cost every call a look
 * at its text.
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

/** A number that is not an integer JavaScript holds exactly and writes as sent (`-0` is not one). */
function inexact(value: unknown): value is number {
  return typeof value === "number" && (!Number.isSafeInteger(value) || Object.is(value, -0));
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
    return invalid(id, ErrorCode.invalidRequest, 'Invalid request: "jsonrpc" must be "2.0"');
  }
  if (hasId && !isId(rawId)) {
    return invalid(null, ErrorCode.invalidRequest, 'Invalid request: "id" must be a string or a number');
  }
  const method = msg.method;
  if (method === undefined) {
    if (hasId && (Object.hasOwn(msg, "result") || Object.hasOwn(msg, "error"))) {
      return Object.hasOwn(msg, "error")
        ? { kind: "response", id: rawId as Id, error: msg.error as RpcError }
        : { kind: "response", id: rawId as Id, result: msg.result };
    }
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

/** Whether `value` can be a request's id: a string, a finite number, or an exact number kept as text. */
export function isId(value: unknown): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ||
    value instanceof ExactNumber;
}

function invalid(id: Id | null, code: number, message: string): InvalidMessage {
  return { kind: "invalid", id, error: { code, message } };
}

/** Serialises a success reply. Throws only if `result` cannot be serialised. */
export function encodeResult(id: Id, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}`;
}

/** Serialises an error reply. */
export function encodeError(id: Id | null, error: RpcError): string {
  return JSON.stringify({ jsonrpc: "2.0", id, error });
}

/** Serialises a notification. */
export function encodeNotification(method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params });
}

/**
 * Reads the id of a message too large to parse, from the bytes kept of its
 * start and end: a top-level `"id"` member near the start, or the last member
 * before the closing brace (where the official SDK client puts it).
 */
export function peekId(head: string, tail: string): Id | null {
  return idFromHead(head) ?? idFromTail(tail);
}

const REPLY_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * The id of a reply or error this toolkit serialised (they all start
 * `{"jsonrpc":"2.0","id":`), read whole however long it is; null when
 * `frame` is not such a reply (a notification, a batch).
 */
export function idOfReply(frame: string): Id | null {
  return frame.startsWith(REPLY_HEAD) ? readValue(frame, REPLY_HEAD.length) : null;
}

function idFromHead(head: string): Id | null {
  // A tiny scanner that only tracks depth and strings, looking for "id" at depth 1.
  let depth = 0;
  let i = 0;
  const n = head.length;
  let expectKey = false;
  while (i < n) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) return null;
      if (depth === 1 && expectKey) {
        const key = head.slice(i, end + 1);
        let j = skipWs(head, end + 1);
        if (head[j] !== ":") return null;
        j = skipWs(head, j + 1);
        if (key === '"id"') return readValue(head, j);
      }
      expectKey = false;
      i = end + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
    i++;
  }
  return null;
}

function idFromTail(tail: string): Id | null {
  let end = tail.length - 1;
  while (end >= 0 && isWs(tail[end])) end--;
  if (tail[end] !== "}") return null;
  end--;
  while (end >= 0 && isWs(tail[end])) end--;
  let start: number;
  if (tail[end] === '"') {
    start = tail.lastIndexOf('"', end - 1);
    while (start > 0 && tail[start - 1] === "\\") start = tail.lastIndexOf('"', start - 2);
    if (start < 0) return null;
  } else {
    start = end;
    while (start > 0 && /[-+0-9.eE]/.test(tail[start - 1])) start--;
  }
  const valueText = tail.slice(start, end + 1);
  let k = start - 1;
  while (k >= 0 && isWs(tail[k])) k--;
  if (tail[k] !== ":") return null;
  k--;
  while (k >= 0 && isWs(tail[k])) k--;
  if (tail.slice(k - 3, k + 1) !== '"id"') return null;
  const before = skipWsBack(tail, k - 4);
  if (before >= 0 && tail[before] !== "," && tail[before] !== "{") return null;
  return parseId(valueText);
}

function readValue(text: string, at: number): Id | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    return end < 0 ? null : parseId(text.slice(at, end + 1));
  }
  let j = at;
  while (j < text.length && /[-+0-9.eE]/.test(text[j])) j++;
  return j === at ? null : parseId(text.slice(at, j));
}

function parseId(text: string): Id | null {
  try {
    const v = JSON.parse(text);
    if (inexact(v) && String(v) !== text) return ExactNumber.of(text);
    return isId(v) ? v : null;
  } catch {
    return null;
  }
}

function stringEnd(text: string, quote: number): number {
  let i = quote + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i;
    else i++;
  }
  return -1;
}

function isWs(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text[i])) i++;
  return i;
}

function skipWsBack(text: string, i: number): number {
  while (i >= 0 && isWs(text[i])) i--;
  return i;
}

/** What one message may cost to parse beyond its size: the limits of its shape. */
export interface ShapeLimits {
  /** The deepest nesting of arrays and objects. */
  maxDepth: number;
  /** The most arrays and objects in all. */
  maxContainers: number;
  /** The most values: array items, object keys and object values, counted by the commas and colons between them. */
  maxValues: number;
}

/**
 * Which shape limit the JSON text in `bytes` breaks, found by a scan that
 * builds nothing, before `JSON.parse` would materialise it: nesting of arrays
 * and objects deeper than `maxDepth`, more than `maxContainers` arrays and
 * objects in all, or more than `maxValues` commas and colons (each separates
 * two values, or a key from its value). Brackets and separators inside
 * strings do not count. A text too short to break any limit is not scanned.
 */
export function shapeOverLimit(bytes: Uint8Array, limits: ShapeLimits): keyof ShapeLimits | undefined {
  const { maxDepth, maxContainers, maxValues } = limits;
  // Each container takes two bytes at least ("[]"), each separator one.
  if (bytes.length <= maxDepth && bytes.length <= 2 * maxContainers && bytes.length <= maxValues) return undefined;
  let depth = 0;
  let containers = 0;
  let values = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      i = closingQuote(bytes, i);
      if (i === -1) return undefined;
    } else if (b === 0x2c || b === 0x3a) {
      if (++values > maxValues) return "maxValues";
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > maxDepth) return "maxDepth";
      if (++containers > maxContainers) return "maxContainers";
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return undefined;
}

const QUOTE = 0x22;
