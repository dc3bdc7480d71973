import { hostForms } from "./host_forms.ts";
import { TextForms } from "./text_forms.ts";

/** What a hidden credential is replaced with when `redact` does not name it. */
export const HIDDEN = "[hidden credential]";

/**
 * The longest credential the filter hides, in characters of visible ASCII
 * (the config refuses a longer one). How far past its cap a body is read
 * follows from this length alone, never from the configured credentials':
 * where a cut falls tells nothing of a credential's length.
 */
export const MAX_CREDENTIAL_LENGTH = 4096;

/**
 * The most characters all the credentials a filter hides may have together
 * (the config refuses more): what a filter costs to build and to search a
 * body with grows with it (measured in the example's README).
 */
export const MAX_CREDENTIALS_TOTAL = 16 * MAX_CREDENTIAL_LENGTH;

// Shorter values would match inside ordinary words (as in the config loader's redaction).
const MIN_LENGTH = 3;
/** The longest text form of a credential of the longest length: `\\u0041` for each character (UTF-16 units). */
const LONGEST_TEXT = 7 * MAX_CREDENTIAL_LENGTH;
/** Its longest byte form: UTF-16, two bytes a character of visible ASCII. */
const LONGEST_BYTES = 2 * MAX_CREDENTIAL_LENGTH;
/**
 * How far past a cap a body is read: the byte filter leaves the last byte form's length unfiltered, and what is
 * decoded after the cap must still hold a whole text form, whose characters take two bytes each in UTF-16, for a
 * credential starting before it (and one more, which is what a body read in part gives a placeholder). A few bytes
 * more for a character the cut splits.
 */
const REACH = 2 * LONGEST_TEXT + 2 * LONGEST_BYTES + 8;

/** Options of {@linkcode SecretFilter.cutBytes}. */
export interface CutOptions {
  /** The cap: in bytes of the body as shown (credentials as their placeholders). */
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
  /**
   * The body's encoding (a WHATWG name, as `TextDecoder.encoding` gives it): how many bytes each character counts.
   * @default {"utf-8"}
   */
  encoding?: string;
}

/** A body filtered by {@linkcode SecretFilter.cutBytes}. */
export interface CutBytes {
  /** The bytes filtered, credentials hidden as their placeholders. */
  shown: Uint8Array;
  /** The bytes read after them, as read: a credential may start there and go on past what was read. */
  rest: Uint8Array;
  /** Whether the body is over the cap, counted with its credentials as their placeholders, or was read in part. */
  cut: boolean;
  /** How many credentials were hidden. */
  hidden: number;
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
 * ({@linkcode SecretFilter.cutBytes}, then {@linkcode SecretFilter.cutText}).
 *
 * Nor does a cut tell a credential's length: the cap counts the body as
 * shown, each credential as its placeholder, and a body is never shown past
 * where credentials of {@linkcode MAX_CREDENTIAL_LENGTH} characters would
 * have left no text read to show; the reach follows from that length alone.
 *
 * @example Hide a credential echoed as text, percent-encoded, or in a body cut at its cap
 * ```ts
 * import { HIDDEN, SecretFilter } from "./secret_filter.ts";
 * import assert from "node:assert/strict";
 *
 * const filter = new SecretFilter(["t0k/en"]);
 * assert.equal(filter.text("Bearer t0k/en"), `Bearer ${HIDDEN}`);
 * assert.equal(filter.text("?a=t0k%2Fen"), `?a=${HIDDEN}`);
 * assert.equal(filter.text("?a=t0k…"), "?a=t0k…", "a part is never hidden: that would tell the model it is one");
 * const read = new TextEncoder().encode(`12345t0k/en and more`);
 * const bytes = filter.cutBytes(read, { max: 7, whole: true });
 * const body = filter.cutText(new TextDecoder().decode(bytes.shown), { max: 7, whole: true });
 * assert.deepEqual(body, { text: `12345${HIDDEN}`, cut: true });
 * ```
 */
export class SecretFilter {
  /**
   * How many bytes past a cap a body must be read so that any credential
   * starting before the cut (and one more) is whole in what was read, in every form
   * this filter hides, as bytes or as text in a charset of up to two bytes
   * per ASCII character: the same for every filter that hides a credential
   * (what the longest one, {@linkcode MAX_CREDENTIAL_LENGTH} characters, needs),
   * 0 without credentials.
   */
  readonly reach: number;
  readonly #redact: (text: string) => string;
  readonly #found: TextForms | undefined;
  readonly #shown: readonly string[];
  readonly #forms: readonly ByteForm[];
  /** The first byte of each form, for a quick skip. */
  readonly #starts = new Uint8Array(256);
  /** The forms by their first byte, longest first. */
  readonly #formsByByte: readonly (readonly ByteForm[])[];
  /** How far before the end of a body read in part the byte filter stops: as bytes. */
  readonly #heldBytes: number;
  /** Every placeholder, longest first, and the first code unit of each: a placeholder is never cut. */
  readonly #placeholders: readonly string[];
  readonly #placeholderStarts = new Set<number>();

  /**
   * Builds the filter.
   *
   * @param secrets The credential values (values under 3 characters are ignored).
   * @param redact Applied to every text too: the config loader's `redact`, which names environment values
   *   (`${NAME}`); a credential it names is shown by that name, any other as {@linkcode HIDDEN}.
   * @throws {RangeError} When a credential has a form longer than one of {@linkcode MAX_CREDENTIAL_LENGTH}
   *   characters of visible ASCII (the reach would not cover it), or the credentials have more than
   *   {@linkcode MAX_CREDENTIALS_TOTAL} characters in all.
   */
  constructor(secrets: readonly string[], redact: (text: string) => string = (text) => text) {
    this.#redact = redact;
    const values = [...new Set(secrets)].filter((v) => v.length >= MIN_LENGTH).sort((a, b) => b.length - a.length);
    const total = values.reduce((sum, value) => sum + value.length, 0);
    if (total > MAX_CREDENTIALS_TOTAL) {
      throw new RangeError(
        `Cannot hide credentials of ${total} characters in all: the most is ${MAX_CREDENTIALS_TOTAL}`,
      );
    }
    this.#shown = values.map((value) => redact(value) === value ? HIDDEN : redact(value));
    const hosts = values.map((value) => hostForms(value).filter((form) => form.length >= MIN_LENGTH));
    values.forEach((value, i) => {
      const text = Math.max(longestText(value), ...hosts[i].map((h) => h.length));
      const bytes = Math.max(...byteForms(value, "").map((form) => form.secret.length));
      if (text > LONGEST_TEXT || bytes > LONGEST_BYTES) {
        const most = `${MAX_CREDENTIAL_LENGTH} of visible ASCII`;
        throw new RangeError(`Cannot hide a credential of ${value.length} characters: the most is ${most}`);
      }
    });
    // Whole values only, longest first: a start of one is never hidden (see the class).
    this.#found = values.length === 0 ? undefined : new TextForms(values, hosts);
    this.#forms = values.flatMap((value, i) => byteForms(value, this.#shown[i]))
      .sort((a, b) => b.secret.length - a.secret.length);
    for (const form of this.#forms) this.#starts[form.secret[0]] = 1;
    this.#formsByByte = Array.from({ length: 256 }, (_, byte) => this.#forms.filter((f) => f.secret[0] === byte));
    this.#heldBytes = values.length === 0 ? 0 : LONGEST_BYTES;
    this.#placeholders = values.length === 0
      ? []
      : [...new Set([...this.#shown, HIDDEN])].sort((a, b) => b.length - a.length);
    for (const placeholder of this.#placeholders) this.#placeholderStarts.add(placeholder.charCodeAt(0));
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
    if (this.#found === undefined) return named;
    let out = "";
    let at = 0;
    for (let found = this.#found.find(named, 0); found !== undefined; found = this.#found.find(named, at)) {
      out += named.slice(at, found.index) + this.#shown[found.which];
      at = found.end;
    }
    return at === 0 ? named : out + named.slice(at);
  }

  /**
   * Hides the credentials in a raw body before it is decoded: each byte form
   * is replaced by its placeholder written in that same form. Nothing is cut
   * here ({@linkcode SecretFilter.cutText} cuts the text, counting what is
   * shown), except that when more of the body was not read, the last
   * bytes, where a credential could start and go on past what was read, are
   * left unfiltered as `rest`; and that the shown part stops growing at twice
   * what was read (placeholders longer than the credentials they hide).
   *
   * @param bytes The body as read: for a body over `max`, `max + reach` bytes.
   * @param options The cap in bytes, and whether `bytes` is the whole body.
   * @returns The filtered bytes, the rest as read, whether the filtered body is over the cap, and how many
   *   credentials were hidden.
   */
  cutBytes(bytes: Uint8Array, options: CutOptions): CutBytes {
    const { max, whole } = options;
    // A credential starting later could go on past what was read.
    const limit = whole ? bytes.length : Math.max(0, bytes.length - this.#heldBytes + 1);
    const budget = 2 * bytes.length;
    const parts: Uint8Array[] = [];
    let size = 0;
    let start = 0;
    let at = 0;
    let hidden = 0;
    let plain = 0;
    // One scan, leftmost and longest first.
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
      plain += at - start;
      at += form.secret.length;
      start = at;
      hidden++;
    }
    const rest = bytes.subarray(at);
    // Counted on the filtered body, and with each credential as long as the longest could be (as cutText's guard
    // does): whether it is over the cap is the same whatever the credentials' lengths, read whole or not.
    const filtered = size + at - start + rest.length;
    const worst = plain + at - start + rest.length + hidden * LONGEST_BYTES;
    const cut = !whole || filtered > max || worst > max + this.reach - this.#heldBytes;
    if (parts.length === 0) return { shown: at === bytes.length ? bytes : bytes.subarray(0, at), rest, cut, hidden };
    parts.push(bytes.subarray(start, at));
    return { shown: concat(parts), rest, cut, hidden };
  }

  /**
   * Hides the credentials in a decoded body and cuts it at `max`, counted
   * on what is shown, never on what was read: each character by the bytes it
   * takes in the body's encoding (at most: see {@linkcode CutTextOptions.encoding}),
   * each placeholder by its own characters, so that where the cut falls,
   * what follows a placeholder and whether the body is cut are the same
   * whatever the hidden credentials' lengths. A placeholder the cut would
   * split is shown whole; `rest` (the bytes `cutBytes` left unfiltered,
   * decoded) is searched for a credential that starts before the cut too.
   *
   * A body read in part is shown only as far as it would be for credentials
   * of {@linkcode MAX_CREDENTIAL_LENGTH} characters in their longest form:
   * each placeholder counts that many bytes against what was read, so that
   * the shown part never reaches where longer credentials would have left
   * no text to show (then it ends before the cap, as it would for any
   * length).
   *
   * @param shown The text of the bytes `cutBytes` filtered.
   * @param options The text of its rest, the cap in bytes, whether the body is whole, how many bytes were read and
   *   the body's encoding.
   * @returns The text shown and whether anything is left out.
   */
  cutText(shown: string, options: CutTextOptions): CutText {
    const { rest = "", max, whole, encoding = "utf-8" } = options;
    const text = rest === "" ? shown : shown + rest;
    const sizeOf = unitBytes(encoding);
    // The most bytes one credential of the longest length takes in a text form, in a charset of up to two bytes
    // an ASCII character (its UTF-16 "\\u0041…"), and in a byte form: what a placeholder counts for the guard.
    const longest = this.#found === undefined ? 0 : LONGEST_TEXT * Math.min(2, sizeOf(0x61));
    // How many bytes of a body read in part (max + reach) the shown part may stand for, at most: any credential
    // that starts in it is then whole in what was read and filtered.
    const room = max + this.reach - Math.max(this.#heldBytes, longest);
    let out = "";
    let size = 0;
    let worst = 0;
    let at = 0;
    let run = 0;
    let stopped = false;
    // The text up to where the shown part stood for more than `room` with the longest credentials, if it did.
    let guarded: string | undefined;
    let found = this.#found?.find(text, 0);
    while (at < text.length) {
      const inText = found !== undefined && found.index === at;
      const placeholder = inText ? this.#shown[found!.which] : this.#placeholderAt(text, at);
      const pair = placeholder === undefined && isHighSurrogate(text.charCodeAt(at)) && at + 1 < text.length;
      let bytes = pair ? 2 * sizeOf(0xd800) : sizeOf(text.charCodeAt(at));
      let stands = bytes;
      if (placeholder !== undefined) {
        bytes = 0;
        for (let i = 0; i < placeholder.length; i++) bytes += sizeOf(placeholder.charCodeAt(i));
        // One the byte filter wrote stands for a byte form, one found here for a text form.
        stands = inText ? longest : LONGEST_BYTES;
      }
      // A placeholder is shown whole while the cap is not reached; a character only if it fits.
      if (placeholder === undefined ? size + bytes > max : size >= max) {
        stopped = true;
        break;
      }
      if (guarded === undefined && worst + stands > room) guarded = out + text.slice(run, at);
      size += bytes;
      worst += stands;
      if (placeholder === undefined) {
        at += pair ? 2 : 1;
        continue;
      }
      out += text.slice(run, at) + placeholder;
      at = inText ? found!.end : at + placeholder.length;
      run = at;
      if (found !== undefined && found.index < at) found = this.#found?.find(text, at);
    }
    out += text.slice(run, at);
    // Shown as far as it would be with credentials of the longest length, read in part: whether the body was read
    // whole turns on their lengths, what is shown must not.
    const named = this.#redact(guarded ?? out);
    const fitted = this.fit(named, max);
    return { text: fitted, cut: stopped || !whole || guarded !== undefined || fitted.length < named.length };
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
    for (const form of this.#formsByByte[bytes[at]]) if (startsWith(bytes, at, form.secret)) return form;
    return undefined;
  }

  /** The placeholder that `text` holds at `at`, if any: one already written by {@linkcode SecretFilter.cutBytes}. */
  #placeholderAt(text: string, at: number): string | undefined {
    if (!this.#placeholderStarts.has(text.charCodeAt(at))) return undefined;
    return this.#placeholders.find((placeholder) => text.startsWith(placeholder, at));
  }
}

/**
 * The longest text form of a value (UTF-16 units): each character as itself, percent-encoded (3 a UTF-8 byte) or
 * JSON-escaped (`\\u0041`, 7 a code unit; 4 for `\\\/`), whichever of them is longest, in any case of it.
 */
function longestText(value: string): number {
  let sum = 0;
  for (const char of value) {
    // An ASCII character's longest form is its JSON escape.
    if (char < "\x80") {
      sum += 7;
      continue;
    }
    let longest = 0;
    for (const form of new Set([char, char.toLowerCase(), char.toUpperCase()])) {
      if (form.length !== char.length) continue;
      longest = Math.max(longest, 3 * ENCODER.encode(form).length, 7 * form.length);
    }
    sum += longest;
  }
  return sum;
}

const ENCODER = new TextEncoder();

/** Single-byte encodings (WHATWG names): a character is one byte. */
const SINGLE_BYTE = /^(ibm866|iso-8859-\d+|koi8-[ru]|macintosh|windows-\d+|x-mac-cyrillic|x-user-defined)$/;

/**
 * How many bytes a UTF-16 code unit takes, at most, in a body in `encoding` (a WHATWG name): exactly in UTF-8,
 * UTF-16 and single-byte encodings; at most in the others (ISO-2022-JP may write an escape before each character;
 * GB18030 takes four bytes for some). A surrogate counts half of its character.
 */
function unitBytes(encoding: string): (code: number) => number {
  if (encoding === "utf-8") {
    return (code) => code < 0x80 ? 1 : code < 0x800 ? 2 : code >= 0xd800 && code < 0xe000 ? 2 : 3;
  }
  if (encoding === "utf-16le" || encoding === "utf-16be") return () => 2;
  if (SINGLE_BYTE.test(encoding)) return () => 1;
  if (encoding === "iso-2022-jp") return (code) => code < 0x80 ? 4 : 5;
  return (code) => code < 0x80 ? 1 : 4;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
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
