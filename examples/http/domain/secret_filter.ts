/** What a hidden credential is replaced with when `redact` does not name it. */
export const HIDDEN = "[hidden credential]";

// Shorter values would match inside ordinary words (as in the config loader's redaction).
const MIN_LENGTH = 3;

/**
 * Hides the config's credentials in everything the model can see: results,
 * refusals and other error messages, whatever part of them came from a
 * server (a body, a header, a `Location`). In text it finds each credential
 * written as itself, with any of its characters percent-encoded (either hex
 * case) or JSON-escaped, and a start of it cut short by `quote()`'s `…`. In
 * a raw body it finds the credential's bytes in UTF-8, Latin-1, UTF-16LE and
 * UTF-16BE, before the body is decoded: a body declared in one charset can
 * carry the secret's bytes in another, and then decoding turns it into text
 * that no longer holds the value (UTF-8 bytes read as UTF-16LE become CJK).
 *
 * @example Hide a credential echoed as text, percent-encoded, or cut short
 * ```ts
 * import { HIDDEN, SecretFilter } from "./secret_filter.ts";
 * import assert from "node:assert/strict";
 *
 * const filter = new SecretFilter(["t0k/en"]);
 * assert.equal(filter.text("Bearer t0k/en"), `Bearer ${HIDDEN}`);
 * assert.equal(filter.text("?a=t0k%2Fen"), `?a=${HIDDEN}`);
 * assert.equal(filter.text('"?a=t0k…"'), `"?a=${HIDDEN}…"`);
 * ```
 */
export class SecretFilter {
  readonly #redact: (text: string) => string;
  readonly #pattern: RegExp | undefined;
  readonly #shown: readonly string[];
  readonly #forms: readonly { secret: Uint8Array; hidden: Uint8Array }[];

  /**
   * Builds the filter.
   *
   * @param secrets The credential values (values under 3 characters are ignored).
   * @param redact Applied first to every text: the config loader's `redact`, which names environment values
   *   (`${NAME}`); a credential it names is shown by that name, any other as {@linkcode HIDDEN}.
   */
  constructor(secrets: readonly string[], redact: (text: string) => string = (text) => text) {
    this.#redact = redact;
    const values = [...new Set(secrets)].filter((v) => v.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
    this.#shown = values.map((value) => redact(value) === value ? HIDDEN : redact(value));
    const units = values.map((value) => [...value].map(charPattern));
    // Whole values first, so that a start cut short is tried only where no whole value is.
    const whole = units.map((chars) => `(${chars.join("")})`);
    const cut = units.map((chars) => `(${nested(chars)}${PARTIAL}(?=…))`);
    this.#pattern = values.length === 0 ? undefined : new RegExp([...whole, ...cut].join("|"), "g");
    this.#forms = values.flatMap((value, i) => byteForms(value, this.#shown[i]));
  }

  /**
   * Hides the credentials in a text.
   *
   * @param text Any text the model may see.
   * @param cut Whether the text was cut at its end (a body at the byte cap): then a start of a credential there is
   *   hidden too, as before a `…`.
   * @returns The text with each credential replaced by its name or {@linkcode HIDDEN}.
   */
  text(text: string, cut = false): string {
    if (cut) return this.text(`${text}…`).slice(0, -1);
    const named = this.#redact(text);
    if (this.#pattern === undefined) return named;
    return named.replace(this.#pattern, (...groups: unknown[]) => {
      const index = groups.slice(1).findIndex((group) => typeof group === "string");
      return this.#shown[index % this.#shown.length];
    });
  }

  /**
   * Hides the credentials in a raw body before it is decoded, in each byte
   * form, the placeholder written in that same form.
   *
   * @param bytes The body.
   * @param cut Whether the body was cut at the byte cap: then a start of a credential at its very end is hidden too.
   * @returns The body, a copy when anything was hidden.
   */
  bytes(bytes: Uint8Array, cut: boolean): Uint8Array {
    let out = bytes;
    for (const form of this.#forms) out = replaceBytes(out, form.secret, form.hidden, cut);
    return out;
  }

  /**
   * Hides the credentials in every string of a result (objects and arrays walked).
   *
   * @param value A result made of plain objects, arrays, strings and other primitives.
   * @returns A copy with every string filtered.
   */
  value<T>(value: T): T {
    if (typeof value === "string") return this.text(value) as T;
    if (Array.isArray(value)) return value.map((item) => this.value(item)) as T;
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.value(v)])) as T;
    }
    return value;
  }

  /**
   * Hides the credentials in an error's message, keeping its class (and so
   * how the toolkit answers it: a `ToolError` is still the model's `isError`).
   *
   * @param err What was thrown.
   * @returns The same error, its message filtered.
   */
  error(err: unknown): unknown {
    if (err instanceof Error) err.message = this.text(err.message);
    return err;
  }
}

/**
 * A JSON escape's backslash: one from the server's JSON, or two when
 * `quote()` escaped that backslash again in a message. Bounded, so that a
 * run of backslashes costs linear time.
 */
const BACKSLASH = "\\\\{1,2}";

/**
 * What a cut may leave of the character after a cut-short start, before the
 * `…`: part of a percent-encoded UTF-8 sequence (`%3`, `%C3%A`), of a JSON
 * escape (`\`, `\u00`, or the first of a surrogate pair), or a lone high
 * surrogate. Each part bounded (a UTF-8 character is at most 4 bytes).
 */
const PARTIAL = "(?:(?:%[0-9a-fA-F]{2}){0,3}(?:%[0-9a-fA-F]?)?|" +
  `(?:${BACKSLASH}u[0-9a-fA-F]{4})?(?:${BACKSLASH}(?:u[0-9a-fA-F]{0,3})?)?|[\\uD800-\\uDBFF])`;

/**
 * One character as itself, percent-encoded (UTF-8, either hex case), or
 * JSON-escaped (`\u` in either hex case, and `\"`, `\\`, `\/`: PHP's
 * `json_encode` writes `/` as `\/`), also as `quote()` escapes that again.
 */
function charPattern(char: string): string {
  const alternatives = [escape(char)];
  const utf8 = new TextEncoder().encode(char);
  alternatives.push([...utf8].map((byte) => `%${hex(byte, 2)}`).join(""));
  let units = "";
  for (let i = 0; i < char.length; i++) units += `${BACKSLASH}u${hex(char.charCodeAt(i), 4)}`;
  alternatives.push(units);
  // `\/` quoted is `\\/`; `"` quoted is `\"`, and `\"` quoted is `\\\"`.
  if (char === "/") alternatives.push(`${BACKSLASH}\\/`);
  if (char === '"') alternatives.push('\\\\{1,3}"');
  // `\` JSON-escaped or quoted is `\\`, and `\\` quoted is `\\\\`.
  if (char === "\\") alternatives.push("\\\\{2,4}");
  return `(?:${alternatives.join("|")})`;
}

/** A start of the value, one character or more: `a(?:b(?:c)?)?`. */
function nested(chars: readonly string[]): string {
  let pattern = "";
  for (let i = chars.length - 1; i >= 1; i--) pattern = `(?:${chars[i]}${pattern})?`;
  return chars[0] + pattern;
}

/** Hex digits of a number as a pattern that accepts either case. */
function hex(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, "0")].map((d) => /[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)
    .join("");
}

function escape(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

/** The value and the placeholder in each encoding a body may be decoded from. */
function byteForms(value: string, shown: string): { secret: Uint8Array; hidden: Uint8Array }[] {
  const utf8 = new TextEncoder().encode(shown);
  const forms: { secret: Uint8Array; hidden: Uint8Array }[] = [{
    secret: new TextEncoder().encode(value),
    hidden: utf8,
  }];
  const codes = [...value].map((c) => c.codePointAt(0)!);
  if (codes.some((c) => c > 0x7f) && codes.every((c) => c <= 0xff)) {
    forms.push({ secret: new Uint8Array(codes), hidden: utf8 });
  }
  forms.push({ secret: utf16(value, true), hidden: utf16(shown, true) });
  forms.push({ secret: utf16(value, false), hidden: utf16(shown, false) });
  return forms;
}

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

/** Every occurrence of `secret` replaced, at any offset (a UTF-16 form may start at an odd byte). */
function replaceBytes(bytes: Uint8Array, secret: Uint8Array, hidden: Uint8Array, cut: boolean): Uint8Array {
  const parts: Uint8Array[] = [];
  let start = 0;
  let i = 0;
  while (i <= bytes.length - secret.length) {
    if (startsWith(bytes, i, secret, secret.length)) {
      parts.push(bytes.subarray(start, i), hidden);
      i += secret.length;
      start = i;
    } else {
      i++;
    }
  }
  let end = bytes.length;
  if (cut) {
    for (let n = Math.min(secret.length - 1, bytes.length - start); n >= 1; n--) {
      if (startsWith(bytes, bytes.length - n, secret, n)) {
        end = bytes.length - n;
        break;
      }
    }
  }
  if (parts.length === 0 && end === bytes.length) return bytes;
  parts.push(bytes.subarray(start, end));
  if (end !== bytes.length) parts.push(hidden);
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function startsWith(bytes: Uint8Array, at: number, secret: Uint8Array, length: number): boolean {
  for (let j = 0; j < length; j++) if (bytes[at + j] !== secret[j]) return false;
  return true;
}
