import { quote } from "../internal/quote.ts";

// Values shorter than this are not replaced in free text: a one- or
// two-character value would match inside ordinary words and garble every
// message, and such a value protects nothing as a secret. A cut (below) must
// keep at least this many characters of a value to be hidden, for the same reason.
const MIN_LENGTH = 3;

// What `quote()` appends when it cuts a value.
const CUT = "…";
const CUT_UNIT = CUT.charCodeAt(0);

interface Form {
  /**
   * How the value can appear in a message: as it is, escaped as `quote()` and
   * `JSON.stringify` write it, or percent-encoded as `encodeURI()` and
   * `encodeURIComponent()` (and so URL parsing) write it.
   */
  readonly text: string;
  /** `text` case-folded: a message that lower-cases a host or upper-cases a value still shows it. */
  readonly folded: string;
  readonly name: string;
  /** The prefix function of `text`, to find the longest prefix of it that ends where a cut does. */
  readonly border: readonly number[];
}

interface Span {
  readonly start: number;
  readonly end: number;
  readonly name: string;
}

/**
 * Returns a function that replaces each environment value in a text with
 * `${NAME}`: the value as it is, its JSON-escaped form (as `quote()` writes
 * it) and its percent-encoded forms, each in any letter case (a message that
 * lower-cases a host shows it so), and the start of one of those forms, as
 * written, when a cut ends it (`"https://user:tok…"`, as `quote()` cuts long
 * values). Every character that belongs to some value
 * is hidden, even where two values overlap; where values start at the same
 * place the longest names the replacement. Replacements are never rewritten.
 * With `cuts` false, a cut start is left as it is: in a tool's result a
 * value's first characters before a `…` are the upstream's text, not a
 * message of this toolkit's that `quote()` cut.
 */
export function redactor(secrets: ReadonlyMap<string, string>): (text: string, cuts?: boolean) => string {
  const forms: Form[] = [];
  for (const [value, name] of secrets) {
    if (value.length < MIN_LENGTH) continue;
    const texts = new Set([value, JSON.stringify(value).slice(1, -1), quote(value, Infinity).slice(1, -1)]);
    for (const encode of [encodeURI, encodeURIComponent]) {
      try {
        texts.add(encode(value));
      } catch {
        // A lone surrogate has no percent-encoded form: URL parsing writes it as U+FFFD, which hides nothing.
      }
    }
    for (const text of texts) forms.push({ text, folded: fold(text), name, border: borders(text) });
  }
  if (forms.length === 0) return (text) => text;
  return (text, cuts = true) => replace(text, spans(text, forms, cuts));
}

function spans(text: string, forms: readonly Form[], cuts: boolean): Span[] {
  const found: Span[] = [];
  // Whole values are found case-folded: the folded text has each character where the text has it.
  const folded = fold(text);
  const caseless = folded.length === text.length;
  const haystack = caseless ? folded : text;
  for (const form of forms) {
    const needle = caseless ? form.folded : form.text;
    // Overlapping occurrences too ("abab" twice in "ababab"): every character of a value is hidden.
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
      found.push({ start: at, end: at + needle.length, name: form.name });
    }
  }
  // A start before a cut is matched as written: `quote()` cuts a value it has not rewritten, and a caseless match
  // would let a file's text before a `…` test a value's start with fewer guesses (see "Redaction answers no guess").
  if (cuts && text.includes(CUT)) {
    for (const form of forms) {
      for (const [cut, length] of prefixesBeforeCuts(text, form)) {
        if (length >= MIN_LENGTH) found.push({ start: cut - length, end: cut, name: form.name });
      }
    }
  }
  return found.sort((a, b) => a.start - b.start || b.end - a.end);
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
// `form.text` that `text` has just before it: one Knuth–Morris–Pratt pass over
// the whole text, so linear in the text and the value however many cuts there
// are (a scan back from each cut cost cuts × the value's length: a file of a
// million `…` and a 1,000-character variable took 16 s).
function prefixesBeforeCuts(text: string, form: Form): [number, number][] {
  const { text: pattern, border } = form;
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
 * `text` lower-cased, one UTF-16 unit for one: `toLowerCase()` keeps every
 * character's length but U+0130's (İ, which becomes two units) and folds Σ
 * by its context (ς at a word's end), so those two are folded first, to i and
 * σ. A value then folds the same alone and inside any message
 * (`_redact_test.ts` checks every code point).
 */
export function fold(text: string): string {
  const plain = FOLDED_FIRST.test(text) ? text.replace(FOLDED_FIRST_ALL, (c) => c === "\u0130" ? "i" : "\u03c3") : text;
  return plain.toLowerCase();
}
const FOLDED_FIRST = /[\u0130\u03a3]/;
const FOLDED_FIRST_ALL = /[\u0130\u03a3]/g;

function borders(pattern: string): number[] {
  const border = new Array<number>(pattern.length).fill(0);
  for (let i = 1, k = 0; i < pattern.length; i++) {
    while (k > 0 && pattern[k] !== pattern[i]) k = border[k - 1];
    if (pattern[k] === pattern[i]) k++;
    border[i] = k;
  }
  return border;
}
