// The `id` of a reply as the text it was written in: an id JavaScript cannot
// hold (2^53 + 1, 30 digits, 1e400) must come back byte for byte, which a
// parsed value cannot show.

function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    if (text[i] === "\\") i++;
    else if (text[i] === '"') return i + 1;
  }
  return text.length;
}

function skipValue(text: string, at: number): number {
  if (text[at] === '"') return skipString(text, at);
  if (text[at] !== "{" && text[at] !== "[") {
    let i = at;
    while (i < text.length && !",}] \t\r\n".includes(text[i])) i++;
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '"') i = skipString(text, i) - 1;
    else if (c === "{" || c === "[") depth++;
    else if ((c === "}" || c === "]") && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The raw text of the top-level `id` member of a JSON object, or undefined. */
export function rawId(text: string): string | undefined {
  let i = text.indexOf("{");
  if (i < 0) return undefined;
  i++;
  while (i < text.length) {
    while (" \t\r\n,".includes(text[i])) i++;
    if (text[i] !== '"') return undefined;
    const keyEnd = skipString(text, i);
    const key = text.slice(i, keyEnd);
    i = keyEnd;
    while (" \t\r\n:".includes(text[i])) i++;
    const end = skipValue(text, i);
    if (key === '"id"') return text.slice(i, end);
    i = end;
  }
  return undefined;
}

/**
 * Whether a reply's id answers a request's: the same text, or the same safe
 * number written another way (`1e3` and `1000`, `-0` and `0`), or the same string.
 */
export function sameId(sent: string, got: string): boolean {
  if (sent === got) return true;
  let a: unknown, b: unknown;
  try {
    [a, b] = [JSON.parse(sent), JSON.parse(got)];
  } catch {
    return false;
  }
  if (typeof a === "string" || typeof b === "string") return a === b;
  return typeof a === "number" && typeof b === "number" && Number.isSafeInteger(a) && a === b;
}
