/** Where {@linkcode TextForms.find} found a credential in a text. */
export interface FoundForm {
  /** Where the credential's text starts. */
  index: number;
  /** Where it ends (exclusive). */
  end: number;
  /** Which value it is, as an index into the values given to the constructor. */
  which: number;
}

/** One character of a credential: the ways a text may write it. */
interface CharForms {
  /** The character, and its lower- and upper-case forms of the same length. */
  literals: string[];
  /** The UTF-8 bytes of each literal, percent-encoded one by one in a text. */
  bytes: number[][];
  /** The UTF-16 code units of each literal, each JSON-escaped as `\uXXXX`. */
  units: number[][];
  /** For `/` and `"`: written after one to three backslashes. */
  escaped: string | undefined;
  /** For `\`: written as two to four backslashes. */
  backslash: boolean;
}

/**
 * A JSON escape's backslash: one from the server's JSON, or two when JSON
 * was nested in JSON or a message's quoting escaped that backslash again.
 */
const MOST_BACKSLASHES = 2;

/**
 * Finds whole credentials in a text in the forms a server's text may hold
 * them: each character as itself (a letter in either case), percent-encoded
 * (UTF-8, either hex case) or JSON-escaped (`\uXXXX` after one or two
 * backslashes, `\/`, `\"`, `\\`, also as nested JSON or a message's quoting
 * escapes them again), and each value's host forms given whole (ASCII
 * letters in either case).
 *
 * It walks the text once, trying only the values whose first character can
 * start where it stands, and follows every way a character may be written
 * at once (a set of positions, never backtracking), so that its cost grows
 * with the text and the values' lengths, not with their product's
 * alternatives: one regular expression over every form of every character
 * took seconds to compile for a credential of 4,096 characters, and would not
 * compile at all for nine of them.
 *
 * @example Find a credential percent-encoded, and one JSON-escaped
 * ```ts
 * import { TextForms } from "./text_forms.ts";
 * import assert from "node:assert/strict";
 *
 * const forms = new TextForms(["t0k/en"], [[]]);
 * assert.deepEqual(forms.find("a=t0k%2Fen", 0), { index: 2, end: 10, which: 0 });
 * assert.deepEqual(forms.find('"T0K\\/EN"', 0), { index: 1, end: 8, which: 0 });
 * assert.equal(forms.find("t0k/e…", 0), undefined);
 * ```
 */
export class TextForms {
  readonly #chars: CharForms[][];
  readonly #hosts: string[][];
  /** For each UTF-16 code unit, the values whose text can start with it (longest first), as an index into #starts. */
  readonly #first = new Int32Array(0x10000);
  readonly #starts: number[][] = [[]];
  /** The slots of `%` and `\`, whose values are narrowed by the byte or code unit they escape. */
  readonly #percentSlot: number;
  readonly #backslashSlot: number;
  /** {@linkcode TextForms.#escapeStarts}' lists, by escaped value (a byte, or 0x10000 plus a code unit; -1: none). */
  readonly #escapes = new Map<number, readonly number[]>();

  /**
   * Builds the matcher.
   *
   * @param values The credentials, in the order a match is preferred at one position (longest first).
   * @param hosts For each value, its host forms (ASCII), each hidden whole.
   */
  constructor(values: readonly string[], hosts: readonly (readonly string[])[]) {
    // One description a distinct character: a credential of visible ASCII has at most 94 of them.
    const known = new Map<string, CharForms>();
    const formsOf = (char: string) => {
      let forms = known.get(char);
      if (forms === undefined) known.set(char, forms = charForms(char));
      return forms;
    };
    this.#chars = values.map((value) => [...value].map(formsOf));
    this.#hosts = values.map((_, i) => [...(hosts[i] ?? [])]);
    const starts = new Map<number, number[]>();
    const add = (code: number, which: number) => {
      const list = starts.get(code) ?? [];
      if (list.at(-1) !== which) list.push(which);
      starts.set(code, list);
    };
    this.#chars.forEach((chars, which) => {
      if (chars.length === 0) return;
      for (const literal of chars[0].literals) add(literal.charCodeAt(0), which);
      add(0x25, which); // %
      add(0x5c, which); // \
      for (const host of this.#hosts[which]) {
        add(host.toLowerCase().charCodeAt(0), which);
        add(host.toUpperCase().charCodeAt(0), which);
      }
    });
    for (const [code, list] of starts) {
      this.#first[code] = this.#starts.length;
      this.#starts.push(list);
    }
    this.#percentSlot = this.#first[0x25] === 0 ? -1 : this.#first[0x25];
    this.#backslashSlot = this.#first[0x5c] === 0 ? -1 : this.#first[0x5c];
  }

  /**
   * Finds the first whole credential at or after `from`: at the first
   * position where one starts, the first value (in the constructor's order)
   * that does, to the furthest end any way of writing it reaches.
   *
   * @param text The text to search.
   * @param from Where to start.
   * @returns Where the credential is and which it is, or `undefined` when none is.
   */
  find(text: string, from: number): FoundForm | undefined {
    for (let at = from; at < text.length; at++) {
      const slot = this.#first[text.charCodeAt(at)];
      if (slot === 0) continue;
      // An escape starts only the values whose first character it can write: narrowed here, before the walk.
      const candidates = slot === this.#percentSlot
        ? this.#escapeStarts(slot, hexAt(text, at + 1, 2), true)
        : slot === this.#backslashSlot
        ? this.#escapeStarts(slot, unicodeEscapeAt(text, at), false)
        : this.#starts[slot];
      for (const which of candidates) {
        const end = this.#endOf(text, at, which);
        if (end !== -1) return { index: at, end, which };
      }
    }
    return undefined;
  }

  /**
   * The values of an escape's slot that the escape at hand can start: those whose first character is the escape's
   * own (`%`, `\`, or `/` and `"` after a backslash), and those whose first character's first UTF-8 byte (`%`) or
   * code unit (`\u`) is the one escaped. Kept for each escaped value met, in the constructor's order.
   */
  #escapeStarts(slot: number, escaped: number, percent: boolean): readonly number[] {
    const key = percent ? escaped : 0x10000 + escaped;
    let list = this.#escapes.get(key);
    if (list === undefined) {
      list = this.#starts[slot].filter((which) => {
        const first = this.#chars[which][0];
        if (percent) return first.literals.includes("%") || first.bytes.some((bytes) => bytes[0] === escaped);
        return first.backslash || first.escaped !== undefined || first.units.some((units) => units[0] === escaped);
      });
      this.#escapes.set(key, list);
    }
    return list;
  }

  /** Where value `which` written from `at` ends (its furthest end), or -1. */
  #endOf(text: string, at: number, which: number): number {
    const chars = this.#chars[which];
    // Where the text holds neither `%` nor `\`, a character can only be written as itself: one way, no set needed.
    let p = at;
    let i = 0;
    for (; i < chars.length; i++) {
      const code = text.charCodeAt(p);
      if (code === 0x25 || code === 0x5c) break;
      const length = literalAt(text, p, chars[i].literals);
      if (length === 0) return this.#hostEnd(text, at, which);
      p += length;
    }
    if (i === chars.length) return p;
    // Two scratch lists, swapped: the walk runs for every candidate start, and allocates nothing.
    let here = HERE;
    let next = NEXT;
    here.length = 0;
    here.push(p);
    let whole = true;
    for (; i < chars.length; i++) {
      next.length = 0;
      for (const position of here) endsOf(text, position, chars[i], next);
      if (next.length === 0) {
        whole = false;
        break;
      }
      const swap = here;
      here = next;
      next = swap;
    }
    if (whole) return Math.max(...here);
    return this.#hostEnd(text, at, which);
  }

  /** Where a host form of value `which` at `at` ends, or -1. */
  #hostEnd(text: string, at: number, which: number): number {
    for (const host of this.#hosts[which]) {
      if (startsWithEitherCase(text, at, host)) return at + host.length;
    }
    return -1;
  }
}

const ENCODER = new TextEncoder();
const HERE: number[] = [];
const NEXT: number[] = [];

/** The forms of one character (a code point). */
function charForms(char: string): CharForms {
  const literals = [...new Set([char, char.toLowerCase(), char.toUpperCase()])].filter((f) => f.length === char.length);
  return {
    literals,
    bytes: literals.map((literal) => [...ENCODER.encode(literal)]),
    units: literals.map((literal) => Array.from({ length: literal.length }, (_, i) => literal.charCodeAt(i))),
    escaped: char === "/" || char === '"' ? char : undefined,
    backslash: char === "\\",
  };
}

/** The length of the literal (one case of a character) that `text` holds at `at`, or 0. */
function literalAt(text: string, at: number, literals: readonly string[]): number {
  const code = text.charCodeAt(at);
  for (const literal of literals) {
    if (literal.charCodeAt(0) !== code) continue;
    if (literal.length === 1 || text.startsWith(literal, at)) return literal.length;
  }
  return 0;
}

/** Adds to `out` every position where `char` written from `at` ends. */
function endsOf(text: string, at: number, char: CharForms, out: number[]): void {
  for (let i = 0; i < char.literals.length; i++) {
    const literal = char.literals[i];
    if (text.startsWith(literal, at)) add(out, at + literal.length);
    let p = at;
    for (const byte of char.bytes[i]) {
      if (p === -1 || text.charCodeAt(p) !== 0x25 || hexAt(text, p + 1, 2) !== byte) p = -1;
      else p += 3;
    }
    if (p !== -1) add(out, p);
    p = at;
    for (const unit of char.units[i]) {
      if (p === -1) break;
      let slashes = 0;
      while (slashes < MOST_BACKSLASHES && text.charCodeAt(p + slashes) === 0x5c) slashes++;
      p = slashes > 0 && text.charCodeAt(p + slashes) === 0x75 && hexAt(text, p + slashes + 1, 4) === unit
        ? p + slashes + 5
        : -1;
    }
    if (p !== -1) add(out, p);
  }
  let run = 0;
  while (run < 4 && text.charCodeAt(at + run) === 0x5c) run++;
  if (char.escaped !== undefined) {
    for (let n = 1; n <= Math.min(run, 3); n++) if (text[at + n] === char.escaped) add(out, at + n + 1);
  }
  if (char.backslash) { for (let n = 2; n <= run; n++) add(out, at + n); }
}

/** The code unit a JSON escape at `at` writes (`\u0041` after one or two backslashes), or -1. */
function unicodeEscapeAt(text: string, at: number): number {
  let slashes = 0;
  while (slashes < MOST_BACKSLASHES && text.charCodeAt(at + slashes) === 0x5c) slashes++;
  return text.charCodeAt(at + slashes) === 0x75 ? hexAt(text, at + slashes + 1, 4) : -1;
}

/** The value of `digits` hex digits (either case) at `at`, or -1. */
function hexAt(text: string, at: number, digits: number): number {
  if (at + digits > text.length) return -1;
  let value = 0;
  for (let i = 0; i < digits; i++) {
    const code = text.charCodeAt(at + i);
    const digit = code >= 0x30 && code <= 0x39
      ? code - 0x30
      : (code | 0x20) >= 0x61 && (code | 0x20) <= 0x66
      ? (code | 0x20) - 0x57
      : -1;
    if (digit === -1) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** Whether `text` holds the ASCII `literal` at `at`, its letters in either case. */
function startsWithEitherCase(text: string, at: number, literal: string): boolean {
  if (at + literal.length > text.length) return false;
  for (let i = 0; i < literal.length; i++) {
    const a = text.charCodeAt(at + i);
    const b = literal.charCodeAt(i);
    if (a === b) continue;
    const lower = a | 0x20;
    if (lower !== (b | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}

function add(out: number[], end: number): void {
  if (!out.includes(end)) out.push(end);
}
