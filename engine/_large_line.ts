// A large line parsed without ever holding its whole text. Decoding UTF-8
// into one string needs a transient buffer as large as the string, and a line
// with one character outside Latin-1 decodes to two bytes per character: 60
// MiB of bytes cost 60 + 120 + 120 MiB at once before JSON.parse even ran.
// Here only the line's structure is decoded and parsed (its "skeleton"): each
// string literal longer than EXTRACT_BYTES is decoded on its own, a chunk at a
// time (so only a chunk's transient exists at once, and only the chunks that
// hold such a character become two-byte), joined into one string without a
// copy, and put back in place of a placeholder once the skeleton is parsed.
// The result is the value JSON.parse would give, or a parse error where it
// would fail.

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
}

const DEFAULTS: LargeLineOptions = { extractBytes: 256, extractKeyBytes: 4096, chunkBytes: 1024 * 1024 };

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
  const skeleton: string[] = [];
  const strings: string[] = [];
  const marker = `\u0000${crypto.randomUUID()}:`;
  let copied = 0;
  let at = bytes.indexOf(QUOTE);
  try {
    while (at !== -1) {
      const close = closingQuote(bytes, at);
      if (close === -1) return { invalid: "json" };
      if (close - at - 1 > (isKey(bytes, close) ? options.extractKeyBytes : options.extractBytes)) {
        skeleton.push((copied === 0 ? first : rest).decode(bytes.subarray(copied, at)));
        const text = literal(bytes, at + 1, close, options.chunkBytes);
        if (text === undefined) return { invalid: "json" };
        skeleton.push(JSON.stringify(`${marker}${strings.length}`));
        strings.push(text);
        copied = close + 1;
      }
      at = bytes.indexOf(QUOTE, close + 1);
    }
    skeleton.push((copied === 0 ? first : rest).decode(bytes.subarray(copied)));
  } catch (err) {
    // The strict decoder throws a TypeError on bytes that are not UTF-8.
    return { invalid: err instanceof TypeError ? "utf8" : "json" };
  }
  release?.();
  const text = skeleton.join("");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { invalid: "json" };
  }
  return { value: strings.length === 0 ? value : restore(value, marker, strings), text };
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

/** Whether the string closed at `close` is an object key: a colon follows it. */
function isKey(bytes: Uint8Array, close: number): boolean {
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
