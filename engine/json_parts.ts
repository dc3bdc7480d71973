// A large reply serialised without ever holding its whole text. JSON.stringify
// of a large string builds the text and then copies it (twice its size at
// once), and writing it needs it flat: a reply whose value holds more than one
// chunk of text is instead kept as literal JSON pieces plus the large strings
// themselves, which the writer escapes a slice at a time as it writes. The
// bytes on the wire are those JSON.stringify would have produced.

import type { Id } from "./id.ts";
import { encodeNotification } from "./jsonrpc.ts";
import { utf8Length } from "../internal/utf8_length.ts";

/** Frames are joined into one write up to this many UTF-16 units; a larger frame is written in slices of it. */
export const WRITE_CHUNK = 256 * 1024;
/** A string longer than this (in UTF-16 units) is escaped lazily, and a value that may serialise longer is walked. */
export const LARGE_UNITS = 64 * 1024;
// A slice escapes to at most 6 units per unit (\u0001), so an escaped slice stays within one write chunk.
const SLICE_UNITS = Math.floor(WRITE_CHUNK / 6);

/** How every reply opens, up to its id. */
const REPLY_OPEN = '{"jsonrpc":"2.0","id":';

/** A string written as a JSON string literal, escaped slice by slice when written. */
interface RawString {
  raw: string;
}

/** A reply as pieces: JSON text, and large strings not yet escaped. */
export class JsonParts {
  readonly #parts: (string | RawString)[];
  /** UTF-16 units held (the large strings unescaped): what the reply costs in memory while it waits. */
  readonly units: number;

  constructor(parts: (string | RawString)[]) {
    this.#parts = parts;
    let units = 0;
    for (const part of parts) units += typeof part === "string" ? part.length : part.raw.length;
    this.units = units;
  }

  /** Most UTF-8 bytes the reply can take: every unit escaped to 6 bytes, or 3 bytes of UTF-8. */
  get maxBytes(): number {
    return this.units * 6;
  }

  /** The exact UTF-8 length of the reply, as written. */
  bytes(): number {
    let bytes = 0;
    for (const part of this.#parts) bytes += typeof part === "string" ? utf8Length(part) : escapedBytes(part.raw);
    return bytes;
  }

  /** The start of the reply (where its id is), as text. */
  head(): string {
    const first = this.#parts[0];
    return typeof first === "string" ? first : "";
  }

  /** The reply's id when it is a long string id, kept as a large string is (so not in {@linkcode head}). */
  longId(): string | undefined {
    const [first, second] = this.#parts;
    return first === REPLY_OPEN && second !== undefined && typeof second !== "string" ? second.raw : undefined;
  }

  /** The reply's text in pieces of at most {@linkcode WRITE_CHUNK} units, each escaped only when it is asked for. */
  *pieces(): Generator<string> {
    for (let i = 0; i < this.#parts.length; i++) {
      const part = this.#parts[i];
      if (typeof part === "string") yield* slices(part, WRITE_CHUNK, false);
      else {
        yield '"';
        yield* slices(part.raw, SLICE_UNITS, true);
        yield '"';
      }
    }
  }

  /**
   * A batch's replies as one JSON array: one string when every reply is
   * one, else in pieces, each reply's large strings kept as they are.
   *
   * @param frames The replies, each a string or in pieces.
   * @returns The array.
   */
  static array(frames: (string | JsonParts)[]): string | JsonParts {
    if (frames.every((frame) => typeof frame === "string")) return `[${frames.join(",")}]`;
    const parts: (string | RawString)[] = ["["];
    for (const [i, frame] of frames.entries()) {
      if (i > 0) parts.push(",");
      if (typeof frame === "string") parts.push(frame);
      else for (const part of frame.#parts) parts.push(part);
    }
    parts.push("]");
    return new JsonParts(parts);
  }

  /** The whole reply as one string (for a batch, whose items are joined). */
  toString(): string {
    let text = "";
    for (const piece of this.pieces()) text += piece;
    return text;
  }
}

// What JSON.stringify escapes: a quote, a backslash, a control character, and a surrogate (a lone one is written
// \uXXXX; one of a pair, found here too, only sends its slice the slow way).
// deno-lint-ignore no-control-regex -- control characters are what JSON escapes
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

function* slices(text: string, size: number, escape: boolean): Generator<string> {
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + size, text.length);
    // Never split a surrogate pair: escaped apart, its halves would be two lone surrogates.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    const slice = start === 0 && end === text.length ? text : text.slice(start, end);
    // A slice with nothing to escape is written as it is: no escaped copy (two strings of it) per slice.
    yield escape && NEEDS_ESCAPE.test(slice) ? JSON.stringify(slice).slice(1, -1) : slice;
    start = end;
  }
}

/** A reply that would pass the stream's maxMessageBytes: building stopped there. */
export class ReplyTooLarge extends RangeError {
  /** The limit it passed, in bytes. */
  readonly limit: number;

  constructor(limit: number) {
    super(`Cannot serialise the result: it takes more than ${limit} bytes (maxMessageBytes)`);
    this.name = "ReplyTooLarge";
    this.limit = limit;
  }
}

/**
 * The UTF-8 length of a frame as written: a string's, or a reply in pieces'
 * (its large strings escaped).
 *
 * @param frame The frame.
 * @returns Its bytes, without the newline.
 */
export function frameBytes(frame: string | JsonParts): number {
  return typeof frame === "string" ? utf8Length(frame) : frame.bytes();
}

/**
 * The success reply to request `id`: one string when `result` serialises
 * short, else {@linkcode JsonParts}. Throws what JSON.stringify throws (a
 * cycle, a BigInt), and {@linkcode ReplyTooLarge} as soon as the JSON text
 * built (large strings are kept, not copied) passes `maxBytes` units: each
 * unit is a byte at least, so the reply could never be sent, and a result
 * whose text would not fit in memory (a sparse array of a billion items) is
 * never built.
 */
export function encodeReply(id: Id, result: unknown, maxBytes = Infinity): string | JsonParts {
  if (fits(result, LARGE_UNITS) >= 0) return replyAfterId(id, `,"result":${JSON.stringify(result)}}`);
  const out = new Builder(maxBytes);
  openReply(out, id);
  out.literal(',"result":');
  encodeValue(prepare(result, "result"), out, []);
  out.literal("}");
  return out.finish();
}

/**
 * The error reply to request `id`, as {@linkcode replyAfterId} writes it.
 *
 * @param id The request's id (null when it could not be read).
 * @param error The error object.
 * @returns The reply.
 */
export function encodeErrorReply(
  id: Id | null,
  error: { code: number; message: string; data?: unknown },
): string | JsonParts {
  return replyAfterId(id, `,"error":${JSON.stringify(error)}}`);
}

/**
 * The notification `method` with `params`: one string when the params
 * serialise short, else {@linkcode JsonParts} with their large strings (a
 * long id a notification carries) kept as they are, escaped as written.
 *
 * @param method The notification's method.
 * @param params Its params.
 * @returns The notification.
 */
export function encodeNoticeParts(method: string, params: Record<string, unknown>): string | JsonParts {
  if (fits(params, LARGE_UNITS) >= 0) return encodeNotification(method, params);
  const out = new Builder(Infinity);
  out.literal(`{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":`);
  encodeValue(prepare(params, "params"), out, []);
  out.literal("}");
  return out.finish();
}

/**
 * The reply to request `id` whose JSON after the id is `rest` (from
 * `,"result":` or `,"error":` to the closing brace): one string, or, for a
 * string id of more than 64 Ki units, the reply in pieces, the id kept as a
 * large string is and escaped as it is written. Quoted with JSON.stringify, a
 * long id was copied, and the writer's slices of the reply flattened it into
 * a second copy (a 60 MiB id with one `€`, two bytes a character, peaked at
 * 473 MiB).
 *
 * @param id The request's id.
 * @param rest The reply's JSON after the id.
 * @returns The reply.
 */
export function replyAfterId(id: Id | null, rest: string): string | JsonParts {
  if (!isLongId(id)) return `${REPLY_OPEN}${JSON.stringify(id)}${rest}`;
  const out = new Builder(Infinity);
  openReply(out, id);
  out.literal(rest);
  return out.finish();
}

/** Whether `id` is a string id long enough to be written as a large string is. */
function isLongId(id: unknown): id is string {
  return typeof id === "string" && id.length > LARGE_UNITS;
}

/** A reply's text up to its id, the id included: a long one as a large string. */
function openReply(out: Builder, id: Id | null): void {
  out.literal(REPLY_OPEN);
  if (isLongId(id)) out.raw(id);
  else out.literal(JSON.stringify(id));
}

/**
 * What is left of `budget` once `value` is serialised, roughly (negative:
 * longer than the budget). It stops as soon as the budget is spent, so a
 * small result costs a few property reads, and a large or cyclic one no more
 * than the budget.
 */
export function fits(value: unknown, budget: number): number {
  if (typeof value === "string") return budget - value.length;
  if (value === null || typeof value !== "object") return budget - 8;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return budget - 8;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length && budget >= 0; i++) budget = fits(value[i], budget - 1);
    return budget;
  }
  for (const key in value) {
    budget = fits((value as Record<string, unknown>)[key], budget - key.length - 4);
    if (budget < 0) break;
  }
  return budget;
}

/** `value` as JSON.stringify sees it under `key`: after `toJSON`, a boxed string unboxed. */
function prepare(value: unknown, key: string): unknown {
  if (value !== null && typeof value === "object") {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return (value as { toJSON(key: string): unknown }).toJSON(key);
    }
    if (value instanceof String) return String(value);
  }
  return value;
}

/** Whether JSON.stringify leaves `value` out of an object (and writes null for it in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function encodeValue(value: unknown, out: Builder, ancestors: object[]): void {
  if (typeof value === "string" && value.length > LARGE_UNITS) return out.raw(value);
  if (value === null || typeof value !== "object" || fits(value, LARGE_UNITS) >= 0) {
    return out.literal(JSON.stringify(value) ?? "null");
  }
  if (ancestors.includes(value)) throw new TypeError("Cannot serialise the result: it refers to itself");
  ancestors.push(value);
  if (Array.isArray(value)) {
    out.literal("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.literal(",");
      const item = prepare(value[i], String(i));
      if (omitted(item)) out.literal("null");
      else encodeValue(item, out, ancestors);
    }
    out.literal("]");
  } else {
    out.literal("{");
    let first = true;
    for (const key of Object.keys(value)) {
      const item = prepare((value as Record<string, unknown>)[key], key);
      if (omitted(item)) continue;
      out.literal(`${first ? "" : ","}${JSON.stringify(key)}:`);
      first = false;
      encodeValue(item, out, ancestors);
    }
    out.literal("}");
  }
  ancestors.pop();
}

/** Gathers literal text into pieces of about LARGE_UNITS, and large strings as they are. */
class Builder {
  #parts: (string | RawString)[] = [];
  #text = "";
  #units = 0;
  readonly #maxUnits: number;

  constructor(maxUnits: number) {
    this.#maxUnits = maxUnits;
  }

  literal(text: string): void {
    this.#text += text;
    if (this.#text.length >= LARGE_UNITS) this.#flush();
  }

  raw(text: string): void {
    this.#flush();
    this.#parts.push({ raw: text });
  }

  finish(): JsonParts {
    this.#flush();
    return new JsonParts(this.#parts);
  }

  #flush(): void {
    if (this.#text.length > 0) {
      this.#add(this.#text.length);
      this.#parts.push(this.#text);
    }
    this.#text = "";
  }

  #add(units: number): void {
    this.#units += units;
    if (this.#units > this.#maxUnits) throw new ReplyTooLarge(this.#maxUnits);
  }
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/** The UTF-8 length of JSON.stringify(text), quotes included, without building it. */
export function escapedBytes(text: string): number {
  let bytes = text.length + 2;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0x20 && unit < 0x80) {
      if (unit === 0x22 || unit === 0x5c) bytes += 1;
    } else if (unit < 0x20) {
      // \b \t \n \f \r take two bytes, every other control character six (\u00XX).
      bytes += unit === 8 || unit === 9 || unit === 10 || unit === 12 || unit === 13 ? 1 : 5;
    } else if (unit < 0x800) bytes += 1;
    else if (isHighSurrogate(unit) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else if (unit >= 0xd800 && unit <= 0xdfff) bytes += 5; // a lone surrogate is escaped: \uXXXX
    else bytes += 2;
  }
  return bytes;
}
