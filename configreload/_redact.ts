import { quote } from "../internal/quote.ts";

// Values shorter than this are not replaced in free text: a one- or
// two-character value would match inside ordinary words and garble every
// message, and such a value protects nothing as a secret. A cut (below) must
// keep at least this many characters of a value to be hidden, for the same reason.
const MIN_LENGTH = 3;

// What `quote()` appends when it cuts a value.
const CUT = "…";
const CUT_UNIT = CUT.charCodeAt(0);

/** How a message can write text: as it is, escaped, or percent-encoded; each encodes a text a code point at a time. */
type Encoding = (text: string) => string;

// The sets of characters URL parsing percent-encodes, besides C0 controls, DEL and all non-ASCII (the WHATWG URL
// standard's percent-encode sets; `_redact_test.ts` checks them against `URL`): in an opaque path, a fragment, a query
// (a special URL's also encodes '), a path, the user info, and `application/x-www-form-urlencoded` (`URLSearchParams`,
// which also writes a space as "+").
const URL_SETS = ["", ' "<>`', ' "#<>', " \"#'<>", ' "#<>?`{}', ' "#/:;<=>?@[\\]^`{|}'];
const FORM_SET = " !\"#$%&'()+,/:;<=>?@[\\]^`{|}~";

const ENCODINGS: readonly Encoding[] = [
  (text) => text,
  (text) => JSON.stringify(text).slice(1, -1),
  (text) => quote(text, Infinity).slice(1, -1),
  encodeURI,
  encodeURIComponent,
  ...URL_SETS.map((set): Encoding => (text) => percentEncode(text, set, false)),
  (text) => percentEncode(text, FORM_SET, true),
];
// Characters that every encoding writes as they are: a value of these only has one form.
const ENCODED_AS_IS = /^[A-Za-z0-9*._-]*$/;

interface Whole {
  /** A form of the value folded: it is looked for in the folded message. */
  readonly folded: string;
  /** The forms that fold to it, as written: where one of them is the match, its variable names the match first. */
  readonly written: readonly string[];
  readonly name: string;
  /** The value is letters only: in another case it is hidden only where it is not part of a longer word. */
  readonly word: boolean;
  /** Which of 128 classes of unit (`unit % 128`) `folded` holds: a text that lacks one cannot hold it. */
  readonly mask: Mask;
}

/** A set of 128 unit classes, in four words. */
type Mask = Int32Array;

interface Start {
  /** A form of the value as written, whose start before a cut is hidden. */
  readonly text: string;
  readonly name: string;
  /** The prefix function of `text`, to find the longest prefix of it that ends where a cut does. */
  readonly border: readonly number[];
  /** How many units of the value the first `length` units of `text` stand for. */
  readonly covered: (length: number) => number;
}

interface Span {
  readonly start: number;
  readonly end: number;
  readonly name: string;
  readonly exact: boolean;
}

/**
 * Returns a function that replaces each environment value in a text with
 * `${NAME}`: the value as it is, its JSON-escaped form (as `quote()` writes
 * it), its percent-encoded forms (`encodeURI()`, `encodeURIComponent()`, and
 * each part of a URL, as URL parsing writes it) and, for a value that is a
 * URL, its `href`, each in any letter case (a message that lower-cases a
 * host or upper-cases a value shows it so, `ß` as `SS` too); and the start
 * of one of those forms but the `href`, as written, when a cut ends it
 * (`"https://user:tok…"`, as `quote()` cuts long values) and the start stands
 * for at least 3 units of the value. Every character that belongs to some
 * value is hidden, even where two values overlap; where values start at the
 * same place the longest names the replacement, and of equally long ones the
 * one the text has as written. Replacements are never rewritten.
 * With `cuts` false, a cut start is left as it is: in a tool's result a
 * value's first characters before a `…` are the upstream's text, not a
 * message of this toolkit's that `quote()` cut.
 */
export function redactor(secrets: ReadonlyMap<string, string>): (text: string, cuts?: boolean) => string {
  const wholes: Whole[] = [];
  const starts: Start[] = [];
  for (const [value, name] of secrets) {
    if (value.length < MIN_LENGTH) continue;
    const folded = new Map<string, string[]>();
    const add = (text: string) => {
      const key = fold(text);
      const written = folded.get(key);
      if (written === undefined) folded.set(key, [text]);
      else if (!written.includes(text)) written.push(text);
    };
    const asWritten = forms(value);
    for (const [text, encoding] of asWritten) {
      add(text);
      starts.push({ text, name, border: borders(text), covered: coverage(value, text, encoding) });
    }
    // A value re-cased can change length (ß as SS, İ as i̇): such a value's re-cased forms are looked for too.
    for (const recased of [value.toUpperCase(), value.toLowerCase()]) {
      if (fold(recased) !== fold(value)) { for (const [text] of forms(recased)) add(text); }
    }
    for (const url of [value, value.toUpperCase(), value.toLowerCase()]) {
      if (URL.canParse(url)) add(new URL(url).href);
    }
    const word = LETTERS.test(value);
    for (const [key, written] of folded) wholes.push({ folded: key, written, name, word, mask: maskOf(key) });
  }
  if (wholes.length === 0) return (text) => text;
  // Each form is filed under the unit class of its least common unit in a message ("/" of a path, "%" of an
  // escape): a message that lacks that class is not searched for it. 100 URL values of a dozen forms each, looked
  // for in 99,898 short messages, took 0.64–0.74 s so against 0.12–0.16 s at 45ffa4d (5 forms); filed, 0.10 s.
  const filed: Whole[][] = Array.from({ length: 128 }, () => []);
  for (const whole of wholes) filed[rarestClass(whole.folded)].push(whole);
  return (text, cuts = true) => replace(text, spans(text, filed, starts, cuts));
}

/** The value's distinct forms as written, each with the encoding that wrote it (the value itself first). */
function forms(value: string): Map<string, Encoding> {
  const found = new Map<string, Encoding>();
  for (const encoding of ENCODED_AS_IS.test(value) ? ENCODINGS.slice(0, 1) : ENCODINGS) {
    try {
      const text = encoding(value);
      if (!found.has(text)) found.set(text, encoding);
    } catch {
      // encodeURI() refuses a lone surrogate; URL parsing writes it as U+FFFD, which percentEncode() does.
    }
  }
  return found;
}

function spans(text: string, filed: readonly Whole[][], starts: readonly Start[], cuts: boolean): Span[] {
  const found: Span[] = [];
  // Whole values are found case-folded: the folded text has each character where the text has it (were it not to,
  // the forms as written would be looked for in the text).
  const folded = fold(text);
  const caseless = folded.length === text.length;
  const haystack = caseless ? folded : text;
  const find = (needle: string, whole: Whole) => {
    // Overlapping occurrences too ("abab" twice in "ababab"): every character of a value is hidden.
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
      const exact = !caseless || whole.written.some((form) => text.startsWith(form, at));
      // "PUT" in another case inside "input" is a word of the message, not the value: "Invalid in${METHOD}" lost it.
      if (!exact && whole.word && inWord(text, at, at + needle.length)) continue;
      found.push({ start: at, end: at + needle.length, name: whole.name, exact });
    }
  };
  const has = maskOf(folded);
  const [a, b, c, d] = [~has[0], ~has[1], ~has[2], ~has[3]];
  for (let unitClass = 0; unitClass < 128; unitClass++) {
    if ((has[unitClass >> 5] & (1 << (unitClass & 31))) === 0) continue;
    for (const whole of filed[unitClass]) {
      const m = whole.mask;
      if (!caseless) { for (const needle of whole.written) find(needle, whole); }
      else if (whole.folded.length <= text.length && ((m[0] & a) | (m[1] & b) | (m[2] & c) | (m[3] & d)) === 0) {
        find(whole.folded, whole);
      }
    }
  }
  // A start before a cut is matched as written: `quote()` cuts a value it has not rewritten, and a caseless match
  // would let a file's text before a `…` test a value's start with fewer guesses (see "Redaction answers no guess").
  // For the same reason it must stand for 3 units of the value: "%2F" is one.
  if (cuts && text.includes(CUT)) {
    for (const start of starts) {
      for (const [cut, length] of prefixesBeforeCuts(text, start)) {
        if (length > 0 && start.covered(length) >= MIN_LENGTH) {
          found.push({ start: cut - length, end: cut, name: start.name, exact: true });
        }
      }
    }
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end || Number(b.exact) - Number(a.exact));
}

const LETTERS = /^[\p{L}\p{M}]+$/u;
const WORD = /[\p{L}\p{M}\p{N}]/u;

/** Whether `text` has a letter, mark or digit just before `start` or just after `end`. */
function inWord(text: string, start: number, end: number): boolean {
  const low = start > 0 && (text.charCodeAt(start - 1) & 0xfc00) === 0xdc00;
  const before = start === 0 ? "" : String.fromCodePoint(text.codePointAt(low && start > 1 ? start - 2 : start - 1)!);
  const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : "";
  return WORD.test(before) || WORD.test(after);
}

// Units a message holds often, most common first; any other is rarer than all of them.
const COMMON = " etaoinsrhdlcumfpgywbvkxjqz:,.\"'()0123456789-_/";

/** The class (`unit % 128`) of the unit of `folded` least common in a message. */
function rarestClass(folded: string): number {
  let rarest = folded.charCodeAt(0) & 127;
  let rank = -1;
  for (let i = 0; i < folded.length && rank !== COMMON.length; i++) {
    const unitClass = folded.charCodeAt(i) & 127;
    const at = COMMON.indexOf(String.fromCharCode(unitClass));
    const unitRank = at === -1 ? COMMON.length : at;
    if (unitRank > rank) [rarest, rank] = [unitClass, unitRank];
  }
  return rarest;
}

function maskOf(text: string): Mask {
  const mask: Mask = new Int32Array(4);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i) & 127;
    mask[unit >> 5] |= 1 << (unit & 31);
  }
  return mask;
}

function replace(text: string, spans: readonly Span[]): string {
  let out = "";
  let at = 0;
  for (const { start, end, name } of spans) {
    if (end <= at) continue;
    out += text.slice(at, Math.max(at, start)) + `\${${name}}`;
    at = end;
  }
  return out + text.slice(at);
}

// For each cut in `text`, where it is and the length of the longest prefix of
// `start.text` that `text` has just before it: one Knuth–Morris–Pratt pass over
// the whole text, so linear in the text and the value however many cuts there
// are (a scan back from each cut cost cuts × the value's length: a file of a
// million `…` and a 1,000-character variable took 16 s).
function prefixesBeforeCuts(text: string, start: Start): [number, number][] {
  const { text: pattern, border } = start;
  const found: [number, number][] = [];
  let matched = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === CUT_UNIT) found.push([i, matched]);
    while (matched > 0 && (matched === pattern.length || pattern[matched] !== text[i])) matched = border[matched - 1];
    if (matched < pattern.length && pattern[matched] === text[i]) matched++;
  }
  return found;
}

/**
 * `text` case-folded, one UTF-16 unit for one: each letter as the lower case
 * of its upper case where that keeps its length (`ſ` as `s`, `ς` as `σ`, `µ`
 * as `μ`), `İ` as `i` (`toLowerCase()` writes it in two units) and `Σ` as `σ`
 * wherever it stands (`toLowerCase()` writes `ς` at a word's end). A letter
 * then folds as both its cases do, and a value folds the same alone and inside
 * any message (`_redact_test.ts` checks every code point). A letter whose
 * other case is longer (`ß` as `SS`) is left to the value's re-cased forms.
 */
export function fold(text: string): string {
  if (!FOLDED_FIRST.test(text)) return text.toLowerCase();
  // A table and a loop, not replace() with a callback: that cost a call per letter, 0.5 s for a message of 4 MB of Σ.
  let out = "";
  const units = new Uint16Array(Math.min(text.length, CHUNK));
  for (let from = 0; from < text.length; from += CHUNK) {
    const length = Math.min(CHUNK, text.length - from);
    for (let i = 0; i < length; i++) {
      const unit = text.charCodeAt(from + i);
      units[i] = unit < FOLD_FIRST.length && FOLD_FIRST[unit] !== 0 ? FOLD_FIRST[unit] : unit;
    }
    out += String.fromCharCode.apply(null, units.subarray(0, length) as unknown as number[]);
  }
  return out.toLowerCase();
}
const CHUNK = 8192;
// Each letter toLowerCase() does not fold as its other case does, and what it folds to (one unit each).
const FOLDED_PAIRS = "\u00b5\u03bc\u0130i\u0131i\u017fs\u0345\u03b9\u03a3\u03c3\u03c2\u03c3\u03d0\u03b2\u03d1\u03b8" +
  "\u03d5\u03c6\u03d6\u03c0\u03f0\u03ba\u03f1\u03c1\u03f5\u03b5\u1c80\u0432\u1c81\u0434\u1c82\u043e\u1c83\u0441" +
  "\u1c84\u0442\u1c85\u0442\u1c86\u044a\u1c87\u0463\u1c88\ua64b\u1e9b\u1e61\u1fbe\u03b9";
const FOLD_FIRST = new Uint16Array(0x1fbf);
for (let i = 0; i < FOLDED_PAIRS.length; i += 2) {
  FOLD_FIRST[FOLDED_PAIRS.charCodeAt(i)] = FOLDED_PAIRS.charCodeAt(i + 1);
}
const FOLDED_FIRST = new RegExp(`[${[...FOLDED_PAIRS].filter((_, i) => i % 2 === 0).join("")}]`);

/**
 * `text` percent-encoded as URL parsing writes it: each UTF-8 byte of a
 * character in `set`, below U+0020 or above U+007E as `%XX`; a lone
 * surrogate as U+FFFD; with `plus`, a space as "+".
 */
function percentEncode(text: string, set: string, plus: boolean): string {
  let out = "";
  for (const char of text.toWellFormed()) {
    const unit = char.charCodeAt(0);
    if (plus && char === " ") out += "+";
    else if (unit >= 0x20 && unit <= 0x7e && !set.includes(char)) out += char;
    else if (unit < 0x80) out += `%${unit.toString(16).toUpperCase().padStart(2, "0")}`;
    else out += encodeURIComponent(char);
  }
  return out;
}

/**
 * For a form of `value`, how many units of the value its first `length`
 * units write whole: built once, when a start of it is first seen before a
 * cut. The value's own form stands for itself.
 */
function coverage(value: string, text: string, encoding: Encoding): (length: number) => number {
  if (text === value) return (length) => length;
  let covered: Uint32Array | undefined;
  return (length) => {
    covered ??= coverageOf(value, text, encoding);
    return covered[length];
  };
}

function coverageOf(value: string, text: string, encoding: Encoding): Uint32Array {
  const covered = new Uint32Array(text.length + 1);
  let at = 0;
  let units = 0;
  for (const char of value) {
    const written = encoding(char);
    // Inside one character's escape, none of that character is written yet.
    covered.fill(units, at, at + written.length);
    at += written.length;
    units += char.length;
    if (at > text.length) break;
    covered[at] = units;
  }
  // Each encoding writes a value a code point at a time; were one not to, its starts would count as written.
  if (at !== text.length) return Uint32Array.from({ length: text.length + 1 }, (_, i) => i);
  return covered;
}

function borders(pattern: string): number[] {
  const border = new Array<number>(pattern.length).fill(0);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[k] !== pattern[i]) k = border[k - 1];
    if (pattern[k] === pattern[i]) k++;
    border[i] = k;
  }
  return border;
}
