import { hostForms } from "./host_forms.ts";

/** What a hidden credential is replaced with when `redact` does not name it. */
export const HIDDEN = "[hidden credential]";

/**
 * The longest credential the filter hides, in characters of visible ASCII
 * (the config refuses a longer one). How far past its cap a body is read
 * follows from this length alone, never from the configured credentials':
 * where a cut falls tells nothing of a credential's length.
 */
export const MAX_CREDENTIAL_LENGTH = 4096;

// Shorter values would match inside ordinary words (as in the config loader's redaction).
const MIN_LENGTH = 3;
/** The longest text form of a credential of the longest length: `\\u0041` for each character (UTF-16 units). */
const LONGEST_TEXT = 7 * MAX_CREDENTIAL_LENGTH;
/** Its longest byte form: UTF-16, two bytes a character of visible ASCII. */
const LONGEST_BYTES = 2 * MAX_CREDENTIAL_LENGTH;
/**
 * How far past a cap a body is read: the byte cut may move past the cap by a byte form, and what is decoded after it
 * must still hold a whole text form, whose characters take two bytes each in UTF-16. A few bytes more for a character
 * the cut splits.
 */
const REACH = 2 * LONGEST_TEXT + 2 * LONGEST_BYTES + 8;

/** Options of {@linkcode SecretFilter.cutBytes}. */
export interface CutOptions {
  /** The cap: in bytes for {@linkcode SecretFilter.cutBytes}, in UTF-16 units for {@linkcode SecretFilter.cutText}. */
  max: number;
  /** Whether what is given is the whole body (else more of it was not read). */
  whole: boolean;
}

/** Options of {@linkcode SecretFilter.cutText}. */
export interface CutTextOptions extends CutOptions {
  /**
   * The text decoded after the shown one (from {@linkcode CutBytes.rest}).
   * @default {""}
   */
  rest?: string;
}

/** A body cut by {@linkcode SecretFilter.cutBytes}. */
export interface CutBytes {
  /** The bytes shown, credentials hidden: up to the cut, or past it to the end of a credential that spans it. */
  shown: Uint8Array;
  /** The bytes read after the cut, as read: never shown, only decoded to look past the cut. */
  rest: Uint8Array;
  /** Whether anything of the body is left out of `shown`. */
  cut: boolean;
}

/** A text cut by {@linkcode SecretFilter.cutText}. */
export interface CutText {
  /** The text shown, credentials hidden and named. */
  text: string;
  /** Whether anything of the text is left out. */
  cut: boolean;
}

/**
 * Hides the config's credentials in everything the model can see: results,
 * refusals and other error messages, whatever part of them came from a
 * server (a body, a header, a `Location`). In text it finds each whole
 * credential written as itself, with any of its characters percent-encoded
 * (either hex case) or JSON-escaped (once or nested); in a raw body, the
 * credential's bytes in UTF-8, Latin-1, UTF-16LE and UTF-16BE, before the
 * body is decoded: a body declared in one charset can carry the secret's
 * bytes in another, and then decoding turns it into text that no longer
 * holds the value (UTF-8 bytes read as UTF-16LE become CJK).
 *
 * A credential written in a URL's host is hidden in the form URL parsing
 * gives it there too (a refusal quotes a redirect's host so): lower-cased,
 * percent-escapes decoded, punycode (`xn--…`) or an IPv4 address
 * (`domain/host_forms.ts`).
 *
 * It never hides a part of a credential. Hiding whatever looked like the
 * start of one (before a `…`, or where a text was cut) answered the question
 * "is this a start of the credential?" for any text the model got echoed
 * back, one character at a time. So a server's text is filtered before
 * anything cuts it, and a body is read past its cap ({@linkcode SecretFilter.reach}) so
 * that a credential starting before the cut is whole in what is filtered
 * ({@linkcode SecretFilter.cutBytes}, {@linkcode SecretFilter.cutText}). How far, and
 * how far before the end of what was read a cut stays, follow from
 * {@linkcode MAX_CREDENTIAL_LENGTH} alone: were they the configured credentials',
 * a cut that moves with them would tell the model a credential's length.
 *
 * @example Hide a credential echoed as text, percent-encoded, or in a body read past its cap
 * ```ts
 * import { HIDDEN, SecretFilter } from "./secret_filter.ts";
 * import assert from "node:assert/strict";
 *
 * const filter = new SecretFilter(["t0k/en"]);
 * assert.equal(filter.text("Bearer t0k/en"), `Bearer ${HIDDEN}`);
 * assert.equal(filter.text("?a=t0k%2Fen"), `?a=${HIDDEN}`);
 * assert.equal(filter.text("?a=t0k…"), "?a=t0k…", "a part is never hidden: that would tell the model it is one");
 * const read = new TextEncoder().encode(`12345t0k/en${" and more".repeat(filter.reach)}`);
 * const body = filter.cutBytes(read.subarray(0, 7 + filter.reach), { max: 7, whole: false });
 * assert.equal(new TextDecoder().decode(body.shown), `12345${HIDDEN}`);
 * ```
 */
export class SecretFilter {
  /**
   * How many bytes past a cap a body must be read so that any credential
   * starting before the cap (and any one that spans the cut
   * {@linkcode SecretFilter.cutBytes} moves to) is whole in what was read, in every form
   * this filter hides, as bytes or as text in a charset of up to two bytes
   * per ASCII character: the same for every filter that hides a credential
   * (what the longest one, {@linkcode MAX_CREDENTIAL_LENGTH} characters, needs),
   * 0 without credentials.
   */
  readonly reach: number;
  readonly #redact: (text: string) => string;
  readonly #pattern: RegExp | undefined;
  readonly #shown: readonly string[];
  readonly #forms: readonly ByteForm[];
  /** The first byte of each form, for a quick skip. */
  readonly #starts = new Uint8Array(256);
  /** How far before the end of a body read in part a cut stays: as bytes, and as text (in UTF-16 code units). */
  readonly #heldBytes: number;
  readonly #heldText: number;
  /** Whether every form is visible ASCII, so that any other character ends every form that spans it. */
  readonly #ascii: boolean;

  /**
   * Builds the filter.
   *
   * @param secrets The credential values (values under 3 characters are ignored).
   * @param redact Applied to every text too: the config loader's `redact`, which names environment values
   *   (`${NAME}`); a credential it names is shown by that name, any other as {@linkcode HIDDEN}.
   * @throws {RangeError} When a credential has a form longer than one of {@linkcode MAX_CREDENTIAL_LENGTH}
   *   characters of visible ASCII (the reach would not cover it).
   */
  constructor(secrets: readonly string[], redact: (text: string) => string = (text) => text) {
    this.#redact = redact;
    const values = [...new Set(secrets)].filter((v) => v.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
    this.#shown = values.map((value) => redact(value) === value ? HIDDEN : redact(value));
    // Whole values only, longest first: a start of one is never hidden (see the class).
    const chars = values.map((value) => [...value].map(charPattern));
    const hosts = values.map((value) => hostForms(value).filter((form) => form.length >= MIN_LENGTH));
    // Before the pattern is built: a credential far over the cap would overflow the regular expression parser.
    values.forEach((value, i) => {
      const text = Math.max(chars[i].reduce((sum, unit) => sum + unit.longest, 0), ...hosts[i].map((h) => h.length));
      const bytes = Math.max(...byteForms(value, "").map((form) => form.secret.length));
      if (text > LONGEST_TEXT || bytes > LONGEST_BYTES) {
        const most = `${MAX_CREDENTIAL_LENGTH} of visible ASCII`;
        throw new RangeError(`Cannot hide a credential of ${value.length} characters: the most is ${most}`);
      }
    });
    this.#pattern = values.length === 0 ? undefined : new RegExp(
      chars.map((units, i) =>
        `(${[units.map((unit) => unit.pattern).join(""), ...hosts[i].map(eitherCase)].join("|")})`
      ).join("|"),
      "g",
    );
    this.#forms = values.flatMap((value, i) => byteForms(value, this.#shown[i]))
      .sort((a, b) => b.secret.length - a.secret.length);
    for (const form of this.#forms) this.#starts[form.secret[0]] = 1;
    this.#heldText = values.length === 0 ? 0 : LONGEST_TEXT;
    this.#heldBytes = values.length === 0 ? 0 : LONGEST_BYTES;
    this.#ascii = values.every((value) => /^[\x21-\x7e]*$/.test(value));
    this.reach = values.length === 0 ? 0 : REACH;
  }

  /**
   * Hides the credentials in a text: every whole credential in any form the
   * class lists, shown by its name or as {@linkcode HIDDEN}. Filter a server's
   * text before cutting it: this never hides a part of a credential.
   *
   * @param text Any text the model may see.
   * @returns The text with each credential replaced by its name or {@linkcode HIDDEN}.
   */
  text(text: string): string {
    const named = this.#redact(text);
    if (this.#pattern === undefined) return named;
    return named.replace(this.#pattern, (...groups: unknown[]) => this.#shown[matched(groups)]);
  }

  /**
   * Hides the credentials in a raw body before it is decoded (in each byte
   * form, its placeholder written in that same form) and cuts it at its cap:
   * the shown part ends at the cap, or past it at the end of a credential
   * that spans it (its placeholder whole), never inside one. When more of the
   * body was not read, the cut stays far enough before the end of what was
   * (read {@linkcode SecretFilter.reach} bytes past the cap and it stays at the cap). Where
   * placeholders make the shown part grow, it is cut at twice the cap.
   *
   * @param bytes The body as read: for a body over `max`, `max + reach` bytes.
   * @param options The cap in bytes, and whether `bytes` is the whole body.
   * @returns The shown bytes, the rest as read, and whether anything is left out.
   */
  cutBytes(bytes: Uint8Array, options: CutOptions): CutBytes {
    const { max, whole } = options;
    let limit = Math.min(max, bytes.length);
    // A credential starting later could go on past what was read.
    if (!whole) limit = Math.min(limit, Math.max(0, bytes.length - this.#heldBytes + 1));
    const budget = 2 * max;
    const parts: Uint8Array[] = [];
    let size = 0;
    let start = 0;
    let at = 0;
    // One scan, leftmost and longest first: every position before `at` was judged on the whole credential, so no
    // credential it hides spans `at`, wherever the scan stops.
    while (at < limit && size + at - start <= budget) {
      let form = this.#starts[bytes[at]] === 1 ? this.#formAt(bytes, at) : undefined;
      // A UTF-16 text's characters sit at even offsets: a value in UTF-16LE preceded by an ASCII character is a
      // value in UTF-16BE one byte earlier too (and the other way round). The odd one gives way, so that the
      // placeholder is written in the body's own byte order; either would hide the value.
      if (form?.utf16 && at % 2 === 1 && this.#formAt(bytes, at + 1)?.utf16) form = undefined;
      if (form === undefined) {
        at++;
        continue;
      }
      parts.push(bytes.subarray(start, at), form.hidden);
      size += at - start + form.hidden.length;
      at += form.secret.length;
      start = at;
    }
    const cut = !whole || at < bytes.length;
    if (parts.length === 0 && !cut) return { shown: bytes, rest: bytes.subarray(at), cut };
    parts.push(bytes.subarray(start, at));
    return { shown: parts.length === 1 ? parts[0] : concat(parts), rest: bytes.subarray(at), cut };
  }

  /**
   * Hides the credentials in a decoded body and cuts it: `shown` is what the
   * byte cut shows, `rest` what was decoded after it, read only to find a
   * credential (percent-encoded, JSON-escaped) that starts in `shown` and
   * ends in `rest`, which is then shown whole as its placeholder. When more
   * of the body was not read, the cut stays far enough before the end of
   * what was. The filtered text is cut at `max` UTF-16 code units (past it to
   * the end of a placeholder the cut would split), so that no placeholder
   * makes a reply grow past the cap.
   *
   * @param shown The text of the bytes shown.
   * @param options The text decoded after it, the cap in UTF-16 code units, and whether they are the whole body.
   * @returns The text shown and whether anything is left out.
   */
  cutText(shown: string, options: CutTextOptions): CutText {
    const { rest = "", max, whole } = options;
    const text = rest === "" ? shown : shown + rest;
    let end = shown.length;
    if (!whole) end = Math.min(end, this.#wholeBefore(text));
    const budget = max + this.#longestShown();
    let out = "";
    let at = 0;
    let stopped = false;
    if (this.#pattern !== undefined) this.#pattern.lastIndex = 0;
    while (at < end) {
      const match = this.#pattern?.exec(text) ?? null;
      const next = match === null || match.index >= end ? end : match.index;
      if (out.length + next - at > budget) {
        // Plain text holds no credential that starts in it: any cut there is safe.
        out += sliceWhole(text, at, at + budget - out.length);
        stopped = true;
        break;
      }
      out += text.slice(at, next);
      at = next;
      if (match === null || next === end) break;
      out += this.#shown[matched(match)];
      at = match.index + match[0].length;
      if (out.length > budget) {
        stopped = true;
        break;
      }
    }
    const named = this.#redact(out);
    const fitted = this.fit(named, max);
    return { text: fitted, cut: stopped || !whole || at < text.length || fitted.length < named.length };
  }

  /**
   * Cuts a filtered text at `max` UTF-16 code units, or past that to the end
   * of a placeholder the cut would split; never between a surrogate pair.
   *
   * @param text A text already filtered.
   * @param max How many code units to keep.
   * @returns The text, cut when it was longer.
   */
  fit(text: string, max: number): string {
    if (text.length <= max) return text;
    let end = max;
    if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    for (const placeholder of new Set([...this.#shown, HIDDEN])) {
      const at = text.lastIndexOf(placeholder, end - 1);
      if (at !== -1 && at + placeholder.length > end) end = at + placeholder.length;
    }
    return text.slice(0, end);
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

  #formAt(bytes: Uint8Array, at: number): ByteForm | undefined {
    for (const form of this.#forms) if (startsWith(bytes, at, form.secret)) return form;
    return undefined;
  }

  /**
   * How much of a text read in part may be shown: up to where a form of the
   * longest length still ends within it, or, when every form is visible
   * ASCII, past that to the last character that is not (a form that starts
   * before it ends before it). Either depends on the text alone, never on the
   * credentials; the second keeps a text of other characters (CJK in UTF-8,
   * three bytes each) from being held back by a whole form's length.
   */
  #wholeBefore(text: string): number {
    const end = Math.max(0, text.length - this.#heldText + 1);
    if (this.#ascii) {
      for (let at = text.length - 1; at >= end; at--) {
        const code = text.charCodeAt(at);
        if (code < 0x21 || code > 0x7e) return at + 1;
      }
    }
    return end;
  }

  #longestShown(): number {
    return Math.max(HIDDEN.length, ...this.#shown.map((shown) => shown.length));
  }
}

/** Which value's group matched, from a match or `replace`'s arguments (the whole match first). */
function matched(groups: ArrayLike<unknown>): number {
  for (let i = 1; i < groups.length; i++) if (typeof groups[i] === "string") return i - 1;
  return 0;
}

/**
 * A JSON escape's backslash: one from the server's JSON, or two when JSON
 * was nested in JSON or `quote()` escaped that backslash again in a message.
 * Bounded, so that a run of backslashes costs linear time.
 */
const BACKSLASH = "\\\\{1,2}";

/**
 * One character, a letter in either case, as itself, percent-encoded (UTF-8, either hex case), or
 * JSON-escaped (`\u` in either hex case, and `\"`, `\\`, `\/`: PHP's
 * `json_encode` writes `/` as `\/`), also as nested JSON or `quote()`
 * escapes that again; with the length of its longest form.
 */
function charPattern(char: string): { pattern: string; longest: number } {
  const alternatives: string[] = [];
  let longest = 0;
  // A letter in either case: a URL's host is lower-cased by parsing, and a refusal quotes the parsed host. A
  // whole credential matched so still never answers for a part of one.
  for (const form of new Set([char, char.toLowerCase(), char.toUpperCase()])) {
    if (form.length !== char.length) continue;
    alternatives.push(escape(form));
    longest = Math.max(longest, form.length);
    const utf8 = new TextEncoder().encode(form);
    alternatives.push([...utf8].map((byte) => `%${hex(byte, 2)}`).join(""));
    longest = Math.max(longest, 3 * utf8.length);
    let units = "";
    for (let i = 0; i < form.length; i++) units += `${BACKSLASH}u${hex(form.charCodeAt(i), 4)}`;
    alternatives.push(units);
    longest = Math.max(longest, 7 * form.length);
  }
  // `/` is `\/` in PHP's JSON, `\\\/` in PHP's JSON nested in PHP's JSON, `\\/` when quote() shows `\/`.
  // `"` is `\"`, `\\\"` nested or quoted; `\` is `\\`, `\\\\` nested or quoted.
  if (char === "/") alternatives.push("\\\\{1,3}\\/");
  if (char === '"') alternatives.push('\\\\{1,3}"');
  if (char === "\\") alternatives.push("\\\\{2,4}");
  if (char === "/" || char === '"' || char === "\\") longest = Math.max(longest, 4);
  return { pattern: `(?:${alternatives.join("|")})`, longest };
}

/** Hex digits of a number as a pattern that accepts either case. */
function hex(value: number, digits: number): string {
  return [...value.toString(16).padStart(digits, "0")].map((d) => /[a-f]/.test(d) ? `[${d}${d.toUpperCase()}]` : d)
    .join("");
}

/** A literal whose ASCII letters match in either case: a host is written lower-cased, a message may not keep it so. */
function eitherCase(literal: string): string {
  return [...literal].map((c) => /[a-z]/i.test(c) ? `[${c.toLowerCase()}${c.toUpperCase()}]` : escape(c)).join("");
}

function escape(literal: string): string {
  return literal.replace(/[\\^$.*+?()[\]{}|/-]/g, "\\$&");
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** `text.slice(start, end)`, one code unit shorter when that would split a surrogate pair. */
function sliceWhole(text: string, start: number, end: number): string {
  return text.slice(start, end > start && isHighSurrogate(text.charCodeAt(end - 1)) ? end - 1 : end);
}

/** A credential's bytes in one encoding, and its placeholder's in the same. */
interface ByteForm {
  secret: Uint8Array;
  hidden: Uint8Array;
  utf16: boolean;
}

/** The value and the placeholder in each encoding a body may be decoded from. */
function byteForms(value: string, shown: string): ByteForm[] {
  const utf8 = new TextEncoder().encode(shown);
  const forms: ByteForm[] = [{ secret: new TextEncoder().encode(value), hidden: utf8, utf16: false }];
  const codes = [...value].map((c) => c.codePointAt(0)!);
  if (codes.some((c) => c > 0x7f) && codes.every((c) => c <= 0xff)) {
    forms.push({ secret: new Uint8Array(codes), hidden: utf8, utf16: false });
  }
  forms.push({ secret: utf16(value, true), hidden: utf16(shown, true), utf16: true });
  forms.push({ secret: utf16(value, false), hidden: utf16(shown, false), utf16: true });
  return forms;
}

function utf16(text: string, littleEndian: boolean): Uint8Array {
  const bytes = new Uint8Array(text.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < text.length; i++) view.setUint16(i * 2, text.charCodeAt(i), littleEndian);
  return bytes;
}

function startsWith(bytes: Uint8Array, at: number, secret: Uint8Array): boolean {
  if (at + secret.length > bytes.length) return false;
  for (let j = 0; j < secret.length; j++) if (bytes[at + j] !== secret[j]) return false;
  return true;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
