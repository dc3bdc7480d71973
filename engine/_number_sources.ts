// The source text of the few numbers a message is routed by — its `id`, a
// cancellation's `params.requestId`, a call's `params._meta.progressToken` —
// read from the message's JSON text by a scanner that follows only the path
// to them and skips every other value without building it. JSON.parse gives
// numbers as doubles, which lose `1.50`, `-0`, `1e400` and 2^53 + 1; the
// reply must carry the id as the client wrote it. Only messages with such a
// number are scanned. Time is linear in the text before those members, memory
// is the few source texts found.

/** The source text of the routing numbers of one message; absent where the member is missing or not a number. */
export interface NumberSources {
  id?: string;
  requestId?: string;
  progressToken?: string;
}

/**
 * The routing numbers' source text of the message in `text`, or of each
 * message of a batch (one entry per item, in order). `text` must be valid
 * JSON (it was parsed): the scanner trusts its structure. Where a key occurs
 * twice, the last one counts, as in JSON.parse.
 */
export function numberSources(text: string): NumberSources[] {
  const at = skipWs(text, 0);
  if (text.charCodeAt(at) === OPEN_OBJECT) return [objectSources(text, at, TOP).sources];
  if (text.charCodeAt(at) !== OPEN_ARRAY) return [{}];
  const out: NumberSources[] = [];
  let i = skipWs(text, at + 1);
  if (text.charCodeAt(i) === CLOSE_ARRAY) return out;
  for (;;) {
    if (text.charCodeAt(i) === OPEN_OBJECT) {
      const item = objectSources(text, i, TOP);
      out.push(item.sources);
      i = item.end;
    } else {
      out.push({});
      i = skipValue(text, i);
    }
    i = skipWs(text, i);
    if (text.charCodeAt(i) !== COMMA) return out;
    i = skipWs(text, i + 1);
  }
}

// Which members a scanned object's sources come from, by nesting.
const TOP = 0;
const PARAMS = 1;
const META = 2;

/** Scans the object opening at `open`, collecting the sources its level holds; returns them and the index after it. */
function objectSources(text: string, open: number, level: number): { sources: NumberSources; end: number } {
  const sources: NumberSources = {};
  let i = skipWs(text, open + 1);
  if (text.charCodeAt(i) === CLOSE_OBJECT) return { sources, end: i + 1 };
  for (;;) {
    const keyEnd = stringEnd(text, i);
    const key = keyOf(text, i, keyEnd);
    i = skipWs(text, skipWs(text, keyEnd) + 1);
    const c = text.charCodeAt(i);
    if (level === TOP && key === "params") {
      // The last "params" wins whole, as in JSON.parse.
      const params = c === OPEN_OBJECT ? objectSources(text, i, PARAMS) : { sources: {}, end: skipValue(text, i) };
      sources.requestId = params.sources.requestId;
      sources.progressToken = params.sources.progressToken;
      i = params.end;
    } else if (level === PARAMS && key === "_meta") {
      const meta = c === OPEN_OBJECT ? objectSources(text, i, META) : { sources: {}, end: skipValue(text, i) };
      sources.progressToken = meta.sources.progressToken;
      i = meta.end;
    } else {
      const end = skipValue(text, i);
      const name = level === TOP && key === "id"
        ? "id"
        : level === PARAMS && key === "requestId"
        ? "requestId"
        : level === META && key === "progressToken"
        ? "progressToken"
        : undefined;
      if (name !== undefined) sources[name] = isNumberStart(c) ? text.slice(i, end) : undefined;
      i = end;
    }
    i = skipWs(text, i);
    if (text.charCodeAt(i) !== COMMA) return { sources, end: i + 1 };
    i = skipWs(text, i + 1);
  }
}

/**
 * The key whose string spans `[open, end)`, when it may be one of the few
 * this scanner looks for; "" for a longer one. A key written with escapes
 * (`"i\u0064"`) is the key JSON.parse sees once they are read.
 */
function keyOf(text: string, open: number, end: number): string {
  if (end - open > 96) return "";
  const raw = text.slice(open + 1, end - 1);
  return raw.includes("\\") ? JSON.parse(text.slice(open, end)) : raw;
}

/** The index just after the JSON value starting at `at`. */
function skipValue(text: string, at: number): number {
  const c = text.charCodeAt(at);
  if (c === QUOTE) return stringEnd(text, at);
  if (c !== OPEN_ARRAY && c !== OPEN_OBJECT) {
    let i = at + 1;
    while (i < text.length && isScalarPart(text.charCodeAt(i))) i++;
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const b = text.charCodeAt(i);
    if (b === QUOTE) i = stringEnd(text, i) - 1;
    else if (b === OPEN_ARRAY || b === OPEN_OBJECT) depth++;
    else if ((b === CLOSE_ARRAY || b === CLOSE_OBJECT) && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The index just after the string whose opening quote is at `open`. */
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  while (at !== -1) {
    let slashes = 0;
    while (text.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at + 1;
    at = text.indexOf('"', at + 1);
  }
  return text.length;
}

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text.charCodeAt(i))) i++;
  return i;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= ZERO && c <= ZERO + 9;
}

function isNumberStart(c: number): boolean {
  return c === MINUS || isDigit(c);
}

/** Characters of a number or of `true`, `false`, `null`. */
function isScalarPart(c: number): boolean {
  return isDigit(c) || c === MINUS || c === 0x2b || c === 0x2e || (c >= 0x61 && c <= 0x7a) || c === 0x45;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;
const MINUS = 0x2d;
const ZERO = 0x30;
