// Reads the id of a frame from its text without parsing it: a request too
// large to parse still gets its error reply under its own id, and the writer
// names a reply too large to send by the id it carries.

import { ExactNumber, type Id, inexact, isId } from "./id.ts";

/**
 * Reads the id of a message too large to parse, from the bytes kept of its
 * start and end: the last member before the closing brace when it is `"id"`
 * (where the official SDK client puts it), else the last top-level `"id"`
 * member near the start. Of two `"id"` members the later one is read, as
 * JSON.parse reads a line that is not too large.
 */
export function peekId(head: string, tail: string): Id | null {
  return idFromTail(tail) ?? idFromHead(head);
}

const REPLY_HEAD = '{"jsonrpc":"2.0","id":';

/**
 * The id of a reply or error this toolkit serialised (they all start
 * `{"jsonrpc":"2.0","id":`), read whole however long it is; null when
 * `frame` is not such a reply (a notification, a batch).
 */
export function idOfReply(frame: string): Id | null {
  return frame.startsWith(REPLY_HEAD) ? readValue(frame, REPLY_HEAD.length) : null;
}

function idFromHead(head: string): Id | null {
  // The last one counts.
  let found: Id | null = null;
  topLevelKeys(head, (key, at) => {
    if (key === "id") found = readValue(head, at);
  });
  return found;
}

/**
 * Whether the start of a message too large to parse is a response: it has a
 * top-level `"result"` or `"error"` member and no `"method"` one. A response
 * is never answered, whatever its size.
 *
 * @param head The first bytes kept of the message, decoded.
 * @returns True for a response.
 *
 * @example
 * ```ts
 * import { peekIsResponse } from "./peek_id.ts";
 *
 * peekIsResponse('{"jsonrpc":"2.0","id":"forge-1","result":{"action":"accept","content":{"na'); // true
 * peekIsResponse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"na'); // false
 * ```
 */
export function peekIsResponse(head: string): boolean {
  let answer = false;
  let request = false;
  topLevelKeys(head, (key) => {
    if (key === "result" || key === "error") answer = true;
    if (key === "method") request = true;
  });
  return answer && !request;
}

/**
 * Calls `visit` with each member name of the top-level object that `head`
 * holds whole, and where its value starts. A tiny scanner that only tracks
 * depth and strings; it stops at a string cut off by the end of `head`.
 */
function topLevelKeys(head: string, visit: (key: string, valueAt: number) => void): void {
  let depth = 0;
  let i = 0;
  const n = head.length;
  let expectKey = false;
  while (i < n) {
    const c = head[i];
    if (c === '"') {
      const end = stringEnd(head, i);
      if (end < 0) return;
      if (depth === 1 && expectKey) {
        const key = head.slice(i, end + 1);
        let j = skipWs(head, end + 1);
        if (head[j] !== ":") return;
        j = skipWs(head, j + 1);
        visit(keyText(key), j);
      }
      expectKey = false;
      i = end + 1;
      continue;
    }
    if (c === "{" || c === "[") {
      depth++;
      expectKey = c === "{" && depth === 1;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "," && depth === 1) expectKey = true;
    i++;
  }
}

/** The key a JSON string spells once its escapes are read (`"i\u0064"` is `id`), as JSON.parse reads it. */
function keyText(quoted: string): string {
  if (!quoted.includes("\\")) return quoted.slice(1, -1);
  try {
    return JSON.parse(quoted);
  } catch {
    return "";
  }
}

function idFromTail(tail: string): Id | null {
  let end = tail.length - 1;
  while (end >= 0 && isWs(tail[end])) end--;
  if (tail[end] !== "}") return null;
  end--;
  while (end >= 0 && isWs(tail[end])) end--;
  let start: number;
  if (tail[end] === '"') {
    start = tail.lastIndexOf('"', end - 1);
    while (start > 0 && tail[start - 1] === "\\") start = tail.lastIndexOf('"', start - 2);
    if (start < 0) return null;
  } else {
    start = end;
    while (start > 0 && /[-+0-9.eE]/.test(tail[start - 1])) start--;
  }
  const valueText = tail.slice(start, end + 1);
  let k = start - 1;
  while (k >= 0 && isWs(tail[k])) k--;
  if (tail[k] !== ":") return null;
  k--;
  while (k >= 0 && isWs(tail[k])) k--;
  if (tail[k] !== '"') return null;
  let open = tail.lastIndexOf('"', k - 1);
  while (open > 0 && tail[open - 1] === "\\") open = tail.lastIndexOf('"', open - 2);
  if (open < 0 || keyText(tail.slice(open, k + 1)) !== "id") return null;
  const before = skipWsBack(tail, open - 1);
  if (before >= 0 && tail[before] !== "," && tail[before] !== "{") return null;
  return parseId(valueText);
}

function readValue(text: string, at: number): Id | null {
  if (text[at] === '"') {
    const end = stringEnd(text, at);
    return end < 0 ? null : parseId(text.slice(at, end + 1));
  }
  let j = at;
  while (j < text.length && /[-+0-9.eE]/.test(text[j])) j++;
  return j === at ? null : parseId(text.slice(at, j));
}

function parseId(text: string): Id | null {
  try {
    const v = JSON.parse(text);
    if (inexact(v) && String(v) !== text) return ExactNumber.of(text);
    return isId(v) ? v : null;
  } catch {
    return null;
  }
}

function stringEnd(text: string, quote: number): number {
  let i = quote + 1;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i;
    else i++;
  }
  return -1;
}

function isWs(c: string | undefined): boolean {
  return c === " " || c === "\t" || c === "\n" || c === "\r";
}

function skipWs(text: string, i: number): number {
  while (i < text.length && isWs(text[i])) i++;
  return i;
}

function skipWsBack(text: string, i: number): number {
  while (i >= 0 && isWs(text[i])) i--;
  return i;
}
