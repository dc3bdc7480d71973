// A request's id as the client wrote it: MCP allows a string or any JSON
// number, and a reply must carry the same id back. A number JavaScript does
// not read as a safe integer (above 2^53, a fraction, -0, an overflow) keeps
// its source text, so no two such ids collide and none changes on the way
// back. Any other notation of a number is the safe integer it reads as:
// `1.0`, `1e0` and `1.00000000000000000001` are the id 1, the underflow
// `1e-400` is 0, so two of them are one id (JSON-RPC says numeric ids SHOULD
// NOT have fractional parts). Keeping their text too would cost every call a
// look at its id's text (docs/mcp-contract.md, "Ids").

import { IdMap } from "./id_map.ts";
import { quote } from "../internal/quote.ts";

/** A JSON-RPC request id as MCP allows it; a number JavaScript cannot hold exactly keeps its text. */
export type Id = string | number | ExactNumber;

/**
 * A numeric id JavaScript does not read as a safe integer (above 2^53, a
 * fraction, `-0`, `1e400`), kept as the text the client sent so that the
 * reply carries it byte for byte. One instance per text while it is in use, so two requests
 * with the same id are still one key in a Map, and two different ones never
 * collide.
 */
export class ExactNumber {
  /** The number as the client wrote it. */
  readonly text: string;

  private constructor(text: string) {
    this.text = text;
    // Shared by every holder of the id, the reply's writer among them: middleware given it cannot change it.
    Object.freeze(this);
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
// By text, in an IdMap: V8 hashes a text of over 16,383 digits by its length alone, so a Map of them compared a new
// one with each of its length whole (a red team's 3,000 pings under ids of 65,537 digits that differ at their end
// took 48 s where ids of as many lengths took 3: a text stays here until its instance is collected).
const exact = new IdMap<WeakRef<ExactNumber>>();
const forget = new FinalizationRegistry<string>((text) => {
  if (exact.get(text)?.deref() === undefined) exact.delete(text);
});

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

/** Whether `value` can be a request's id: a string, a finite number, or an exact number kept as text. */
export function isId(value: unknown): value is Id {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ||
    value instanceof ExactNumber;
}

/**
 * Whether a parsed number must keep its source text: it is not a safe integer
 * (`-0` counts as not one). One that is stays that number whatever its text
 * (`1e-400` is 0, `1.00000000000000000001` is 1).
 */
export function inexact(value: unknown): value is number {
  return typeof value === "number" && (!Number.isSafeInteger(value) || Object.is(value, -0));
}
