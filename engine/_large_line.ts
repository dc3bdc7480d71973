// A large line parsed without ever holding its whole text. Decoding UTF-8
// into one string needs a transient buffer as large as the string, and a line
// with one character outside Latin-1 decodes to two bytes per character: 60
// MiB of bytes cost 60 + 120 + 120 MiB at once before JSON.parse even ran.
// Here only the line's structure is decoded and parsed (its "skeleton"): each
// string literal longer than `extractBytes` (a key: `extractKeyBytes`) is
// decoded on its own, a chunk at a time (so only a chunk's transient exists at
// once, and only the chunks that hold such a character become two-byte),
// joined into one string without a copy, and put back in place of a
// placeholder once the skeleton is parsed. A skeleton whose few characters
// past U+00FF would make all of it two-byte is written as ASCII instead, each
// character past ASCII as a \uXXXX escape. The result is the value JSON.parse
// would give, or a parse error where it would fail.

/** What a large line parses to: its value, and the skeleton's text (where the routing numbers are read). */
export interface LargeParsed {
  value: unknown;
  text: string;
}

/** Sizes of the pieces, in bytes; tests make them small to reach every boundary. */
export interface LargeLineOptions {
  /** A string value longer than this is decoded apart from the skeleton. */
  extractBytes: number;
  /**
   * An object key longer than this is decoded apart from the skeleton; a
   * shorter one stays, so that the routing members (`id`, `params`, `_meta`…)
   * are read from the skeleton however they are escaped.
   */
  extractKeyBytes: number;
  /** The most bytes of a literal decoded at once. */
  chunkBytes: number;
  /**
   * When the text left in the skeleton holds a character past U+00FF, it is
   * written as ASCII with escapes if its UTF-16 units past ASCII are fewer
   * than this many per ASCII byte, and decoded as it is otherwise.
   */
  escapeRatio: number;
}

const DEFAULTS: LargeLineOptions = {
  extractBytes: 256,
  extractKeyBytes: 512,
  chunkBytes: 1024 * 1024,
  // Escaped, a character past ASCII takes six bytes (a pair twelve) where two-byte text takes two a unit, and its
  // ASCII two a byte where escaped text takes one: below one in four, escaped text is the smaller.
  escapeRatio: 0.25,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
// The first piece may open with a byte order mark, dropped as a whole line's decoding drops it; anywhere else
// U+FEFF is data (in a string) or an error (outside one), as JSON.parse would see it.
const first = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
const rest = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
// The lenient decoder takes Deno's fast path (ASCII: no transient copy); bytes known to be ASCII are valid UTF-8.
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });
// deno-lint-ignore no-control-regex -- JSON forbids raw control characters in a string: finding them is the point
const CONTROL = /[\u0000-\u001f]/;
const encoder = new TextEncoder();
const HEX = encoder.encode("0123456789abcdef");

/**
 * Parses the JSON text in `bytes` as JSON.parse would, decoding only its
 * structure whole and its long strings apart, in chunks; `release` is called
 * once every byte is decoded, before anything is parsed. Returns undefined
 * when the text is not valid JSON or not valid UTF-8 (`utf8` says which).
 */
export function parseLargeLine(
  bytes: Uint8Array,
  release?: () => void,
  options: LargeLineOptions = DEFAULTS,
): LargeParsed | { invalid: "utf8" | "json" } {
  // The literals taken apart (each one's opening and closing quote), and what the rest costs as text.
  const apart: number[] = [];
  const tally: Tally = { ascii: 0, units: 0, escapedBytes: 0, wide: false };
  let from = 0;
  let at = bytes.indexOf(QUOTE);
  while (at !== -1) {
    const close = closingQuote(bytes, at);
    if (close === -1) return refusal(bytes);
    if (close - at - 1 > (isKey(bytes, close) ? options.extractKeyBytes : options.extractBytes)) {
      tallyText(bytes, from, at, tally);
      apart.push(at, close);
      from = close + 1;
    }
    at = bytes.indexOf(QUOTE, close + 1);
  }
  tallyText(bytes, from, bytes.length, tally);
  const strings: string[] = [];
  const marker = `\u0000${crypto.randomUUID()}:`;
  let text: string;
  try {
    // A character past U+00FF makes the whole skeleton two bytes a character in V8, ASCII included, and decoding
    // it needs a transient as large: where such characters are few (escapeRatio), the skeleton is written as ASCII
    // instead, each character past ASCII as a \uXXXX escape (six bytes, twelve for a pair), which JSON.parse reads
    // back as the same character.
    text = tally.wide && tally.units < tally.ascii * options.escapeRatio
      ? escapedSkeleton(bytes, apart, strings, marker, tally.escapedBytes, options, release)
      : decodedSkeleton(bytes, apart, strings, marker, options, release);
  } catch {
    // Thrown before the bytes were given back: a TypeError for bytes that are not UTF-8 (the strict decoder's, or
    // escapeTo's), a SyntaxError for text that is not JSON; which one is said as decoding the whole line would.
    return refusal(bytes);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: "json" };
  }
  return { value: strings.length === 0 ? value : restore(value, marker, strings), text };
}

/**
 * The refusal of a line found not to be JSON, or not UTF-8, before all of it
 * was decoded: as decoding it whole first would say, not UTF-8 when any byte
 * is not, wherever the first problem was met.
 */
function refusal(bytes: Uint8Array): { invalid: "utf8" | "json" } {
  return { invalid: isUtf8(bytes) ? "json" : "utf8" };
}

/** What the text left in the skeleton holds, as {@linkcode tallyText} counts it. */
interface Tally {
  /** Its ASCII bytes. */
  ascii: number;
  /** Its UTF-16 units past ASCII. */
  units: number;
  /** Its size written as ASCII, each character past ASCII escaped. */
  escapedBytes: number;
  /** Whether a character past U+00FF is among them. */
  wide: boolean;
}

/** The placeholder of the next string taken apart, as JSON text (ASCII: the marker's NUL is escaped). */
function placeholder(marker: string, index: number): string {
  return JSON.stringify(`${marker}${index}`);
}

/**
 * Decodes one long literal apart and puts it in `strings`; throws a
 * SyntaxError when it is not a JSON string (a TypeError when not UTF-8).
 */
function takeApart(bytes: Uint8Array, open: number, close: number, strings: string[], chunkBytes: number): void {
  const text = literal(bytes, open + 1, close, chunkBytes);
  if (text === undefined) throw new SyntaxError("not a JSON string");
  strings.push(text);
}

/**
 * The skeleton decoded from the line's own bytes a stretch at a time (each
 * stretch between two literals taken apart), with each long literal decoded
 * apart into `strings`; `release` is called once every byte is decoded.
 */
function decodedSkeleton(
  bytes: Uint8Array,
  apart: number[],
  strings: string[],
  marker: string,
  options: LargeLineOptions,
  release?: () => void,
): string {
  const skeleton: string[] = [];
  let copied = 0;
  for (let k = 0; k < apart.length; k += 2) {
    skeleton.push((copied === 0 ? first : rest).decode(bytes.subarray(copied, apart[k])));
    skeleton.push(placeholder(marker, strings.length));
    takeApart(bytes, apart[k], apart[k + 1], strings, options.chunkBytes);
    copied = apart[k + 1] + 1;
  }
  skeleton.push((copied === 0 ? first : rest).decode(bytes.subarray(copied)));
  release?.();
  return skeleton.join("");
}

/**
 * The skeleton written as ASCII into one buffer of the size `tally` counted
 * (each character past ASCII as an escape), with each long literal decoded
 * apart into `strings`; the line's bytes are released before the buffer is
 * decoded, one byte a character and with no transient.
 */
function escapedSkeleton(
  bytes: Uint8Array,
  apart: number[],
  strings: string[],
  marker: string,
  escapedBytes: number,
  options: LargeLineOptions,
  release?: () => void,
): string {
  const count = apart.length / 2;
  const out = new Uint8Array(escapedBytes + count * placeholder(marker, count).length);
  // A byte order mark opening the line is dropped, as a whole line's decoding drops it.
  let copied = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  let n = 0;
  for (let k = 0; k < apart.length; k += 2) {
    n = escapeTo(bytes, copied, apart[k], out, n);
    n += encoder.encodeInto(placeholder(marker, strings.length), out.subarray(n)).written;
    takeApart(bytes, apart[k], apart[k + 1], strings, options.chunkBytes);
    copied = apart[k + 1] + 1;
  }
  n = escapeTo(bytes, copied, bytes.length, out, n);
  release?.();
  const text = lenient.decode(out.subarray(0, n));
  // Given back now, not at the next collection: JSON.parse is about to build every value of the line.
  out.buffer.transfer(0);
  return text;
}

/**
 * Adds to `tally` what `bytes[from, to)` holds, looked at four bytes at a
 * time through the plain scratch buffer (a loop over a view of the framer's
 * resizable buffer is slow): its ASCII bytes, its UTF-16 units past ASCII
 * (one per lead byte, two past U+FFFF), what it takes escaped, and whether a
 * character past U+00FF is among them (a lead byte of 0xC4 or more: U+0080
 * to U+00FF lead with 0xC2 or 0xC3).
 */
function tallyText(bytes: Uint8Array, from: number, to: number, tally: Tally): void {
  for (let start = from; start < to; start += scratchBytes.length) {
    const n = Math.min(scratchBytes.length, to - start);
    scratchBytes.set(bytes.subarray(start, start + n));
    const words = n >>> 2;
    let ascii = 0;
    for (let w = 0; w < words; w++) {
      if ((scratchWords[w] & 0x80808080) === 0) ascii += 4;
      else for (let i = w * 4; i < w * 4 + 4; i++) tallyByte(scratchBytes[i], tally);
    }
    for (let i = words * 4; i < n; i++) tallyByte(scratchBytes[i], tally);
    tally.ascii += ascii;
    tally.escapedBytes += ascii;
  }
}

/** Adds one byte to `tally`: a continuation byte adds nothing, its lead byte counted the character. */
function tallyByte(b: number, tally: Tally): void {
  if (b < 0x80) {
    tally.ascii++;
    tally.escapedBytes++;
  } else if (b >= 0xc0) {
    const pair = b >= 0xf0;
    tally.units += pair ? 2 : 1;
    tally.escapedBytes += pair ? 12 : 6;
    if (b >= 0xc4) tally.wide = true;
  }
}

/**
 * Writes `bytes[from, to)` at `out[n]` as ASCII: each character past ASCII,
 * checked to be UTF-8 as the strict decoder checks it, as a `\uXXXX` escape
 * (one past U+FFFF as a surrogate pair). Returns the index after what it
 * wrote. Throws a TypeError on bytes that are not UTF-8, and a SyntaxError
 * where such a character follows a backslash that opens an escape (not JSON,
 * which the escape would make JSON); outside a string an escape is no more
 * JSON than the character was.
 */
function escapeTo(bytes: Uint8Array, from: number, to: number, out: Uint8Array, n: number): number {
  let slashes = 0;
  for (let i = from; i < to;) {
    const b = bytes[i];
    if (b < 0x80) {
      out[n++] = b;
      slashes = b === BACKSLASH ? slashes + 1 : 0;
      i++;
      continue;
    }
    const point = codePoint(bytes, i, to);
    if (point < 0) throw new TypeError("not UTF-8");
    const size = point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    if (slashes % 2 === 1) throw new SyntaxError("a backslash before a character past ASCII");
    slashes = 0;
    i += size;
    if (point > 0xffff) {
      n = writeEscape(out, n, 0xd800 + ((point - 0x10000) >> 10));
      n = writeEscape(out, n, 0xdc00 + ((point - 0x10000) & 0x3ff));
    } else n = writeEscape(out, n, point);
  }
  return n;
}

/**
 * The string whose literal's content is `bytes[from, to)`, decoded a chunk at
 * a time and joined without a copy; undefined when the content is not a valid
 * JSON string (a raw control character, a bad escape). Throws on bad UTF-8.
 */
function literal(bytes: Uint8Array, from: number, to: number, chunkBytes: number): string | undefined {
  const content = bytes.subarray(from, to);
  const escaped = content.includes(BACKSLASH);
  // ASCII decodes to a one-byte string with no transient: at once, so that it is never copied again.
  if (!escaped && isAscii(content)) {
    const text = lenient.decode(content);
    return CONTROL.test(text) ? undefined : text;
  }
  let out = "";
  // An escaped chunk is decoded with its quotes around it, so JSON.parse unescapes it with no copy made to add them.
  const quoted = escaped ? new Uint8Array(Math.min(chunkBytes + 6, to - from) + 2) : undefined;
  for (let start = from; start < to;) {
    let end = Math.min(start + chunkBytes, to);
    if (end < to) end = safeCut(bytes, start, end);
    if (quoted === undefined) {
      const text = decodeChunk(bytes.subarray(start, end));
      if (CONTROL.test(text)) return undefined;
      out += text;
    } else {
      // No quote can be in it unescaped: the literal's own closing quote is at `to`.
      const length = end - start + 2;
      quoted[0] = QUOTE;
      quoted.set(bytes.subarray(start, end), 1);
      quoted[length - 1] = QUOTE;
      try {
        out += JSON.parse(decodeChunk(quoted.subarray(0, length)));
      } catch (err) {
        if (err instanceof SyntaxError) return undefined;
        throw err;
      }
    }
    start = end;
  }
  return out;
}

/**
 * A chunk decoded by the lenient decoder (Deno's fast path), and again
 * strictly only when that showed a U+FFFD, to tell bad bytes (it throws)
 * from one the client sent.
 */
function decodeChunk(bytes: Uint8Array): string {
  const text = lenient.decode(bytes);
  return text.includes("\uFFFD") ? rest.decode(bytes) : text;
}

// The bytes isAscii looks at, copied in: a large line sits in a view of the framer's resizable buffer, and a
// loop over such a view ran 5× slower than over a plain one (docs/benchmarks.md, Findings, "The 10 MiB round trip").
const SCRATCH_WORDS = 16 * 1024;
const scratchWords = new Uint32Array(SCRATCH_WORDS);
const scratchBytes = new Uint8Array(scratchWords.buffer);

/** Whether every byte is below 0x80: copied a slice at a time into a plain buffer, looked at four bytes at a time. */
export function isAscii(bytes: Uint8Array): boolean {
  for (let start = 0; start < bytes.length; start += scratchBytes.length) {
    const n = Math.min(scratchBytes.length, bytes.length - start);
    scratchBytes.set(bytes.subarray(start, start + n));
    const words = n >>> 2;
    for (let w = 0; w < words; w++) if ((scratchWords[w] & 0x80808080) !== 0) return false;
    for (let i = words * 4; i < n; i++) if (scratchBytes[i] >= 0x80) return false;
  }
  return true;
}

/**
 * A cut at or before `end` (and after `start`) that splits neither a UTF-8
 * character nor an escape (`\n`, `\uXXXX`): the chunks then decode and
 * unescape one by one to what the whole would.
 */
function safeCut(bytes: Uint8Array, start: number, end: number): number {
  let cut = end;
  while (cut > start && (bytes[cut] & 0xc0) === 0x80) cut--;
  // An escape opens at a backslash preceded by an even run of backslashes; \uXXXX spans six bytes.
  for (let k = cut - 1; k >= Math.max(start, cut - 6); k--) {
    if (bytes[k] !== BACKSLASH) continue;
    let run = 1;
    while (k - run >= start && bytes[k - run] === BACKSLASH) run++;
    // `k` ends a run of `run` backslashes: with an odd run, the last one opens an escape.
    if (run % 2 === 1) {
      const span = bytes[k + 1] === 0x75 ? 6 : 2;
      if (k + span > cut) cut = k;
    }
    break;
  }
  if (cut > start) return cut;
  // The chunk is smaller than the escape or character it opens with: it takes that one whole.
  if (bytes[start] === BACKSLASH) return start + (bytes[start + 1] === 0x75 ? 6 : 2);
  let next = start + 1;
  while ((bytes[next] & 0xc0) === 0x80) next++;
  return next;
}

/**
 * The code point whose UTF-8 sequence starts at `bytes[i]` (a byte past
 * ASCII) and ends before `to`, or -1 when the bytes there are not UTF-8, as
 * the strict decoder judges them: the lead byte says how many continuation
 * bytes follow, and so the least code point they may spell (no overlong
 * form); past U+10FFFF, a surrogate, a missing or stray continuation byte, or
 * a sequence cut at `to` is not UTF-8.
 */
function codePoint(bytes: Uint8Array, i: number, to: number): number {
  const b = bytes[i];
  const size = b >= 0xc2 && b < 0xe0 ? 2 : b >= 0xe0 && b < 0xf0 ? 3 : b >= 0xf0 && b < 0xf5 ? 4 : 0;
  if (size === 0 || i + size > to) return -1;
  let point = b & (size === 2 ? 0x1f : size === 3 ? 0x0f : 0x07);
  for (let k = 1; k < size; k++) {
    const c = bytes[i + k];
    if ((c & 0xc0) !== 0x80) return -1;
    point = (point << 6) | (c & 0x3f);
  }
  const least = size === 2 ? 0x80 : size === 3 ? 0x800 : 0x10000;
  return point < least || point > 0x10ffff || (point >= 0xd800 && point <= 0xdfff) ? -1 : point;
}

/**
 * Whether `bytes` are UTF-8 throughout: looked at through the plain scratch
 * buffer a slice at a time (its last three bytes repeated at the next slice's
 * start, so that no sequence is cut), with no string made.
 */
export function isUtf8(bytes: Uint8Array): boolean {
  const window = scratchBytes.length - 3;
  for (let start = 0; start < bytes.length;) {
    const seen = Math.min(scratchBytes.length, bytes.length - start);
    scratchBytes.set(bytes.subarray(start, start + seen));
    const end = Math.min(window, seen);
    let k = 0;
    while (k < end) {
      // Four ASCII bytes at a time where a word starts; a byte at a time elsewhere.
      if ((k & 3) === 0 && k + 4 <= end && (scratchWords[k >> 2] & 0x80808080) === 0) {
        k += 4;
        continue;
      }
      if (scratchBytes[k] < 0x80) {
        k++;
        continue;
      }
      const point = codePoint(scratchBytes, k, seen);
      if (point < 0) return false;
      k += point < 0x800 ? 2 : point < 0x10000 ? 3 : 4;
    }
    start += k;
  }
  return true;
}

/** Writes `\uXXXX` for the UTF-16 unit `unit` at `out[n]`; returns the index after it. */
function writeEscape(out: Uint8Array, n: number, unit: number): number {
  out[n] = BACKSLASH;
  out[n + 1] = 0x75;
  out[n + 2] = HEX[unit >> 12];
  out[n + 3] = HEX[(unit >> 8) & 0xf];
  out[n + 4] = HEX[(unit >> 4) & 0xf];
  out[n + 5] = HEX[unit & 0xf];
  return n + 6;
}

/** Whether the string closed at `close` is an object key: a colon follows it. */
export function isKey(bytes: Uint8Array, close: number): boolean {
  let i = close + 1;
  while (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d) i++;
  return bytes[i] === 0x3a;
}

/** The index of the quote that closes the string opened at `open`, or -1. */
export function closingQuote(bytes: Uint8Array, open: number): number {
  let at = bytes.indexOf(QUOTE, open + 1);
  while (at !== -1) {
    let slashes = 0;
    while (bytes[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = bytes.indexOf(QUOTE, at + 1);
  }
  return -1;
}

/** `value` with each placeholder string (a value or a key) replaced by the string it stands for. */
function restore(value: unknown, marker: string, strings: string[]): unknown {
  const original = (s: string): string | undefined =>
    s.length < marker.length + 12 && s.startsWith(marker) ? strings[Number(s.slice(marker.length))] : undefined;
  if (typeof value === "string") return original(value) ?? value;
  const stack: object[] = value !== null && typeof value === "object" ? [value] : [];
  while (stack.length > 0) {
    const holder = stack.pop() as Record<string, unknown>;
    let renamed = false;
    for (const key of Object.keys(holder)) {
      const item = holder[key];
      if (typeof item === "string") {
        const text = original(item);
        if (text !== undefined) holder[key] = text;
      } else if (item !== null && typeof item === "object") stack.push(item);
      if (!Array.isArray(holder) && original(key) !== undefined) renamed = true;
    }
    if (renamed) rename(holder, original);
  }
  return value;
}

/** Puts each placeholder key of `holder` back as its string, keeping the keys' order. */
function rename(holder: Record<string, unknown>, original: (s: string) => string | undefined): void {
  const entries = Object.keys(holder).map((key) => [original(key) ?? key, holder[key]] as const);
  for (const key of Object.keys(holder)) delete holder[key];
  // defineProperty: a "__proto__" key stays an own property, as JSON.parse made it.
  for (const [key, item] of entries) {
    Object.defineProperty(holder, key, { value: item, writable: true, enumerable: true, configurable: true });
  }
}
