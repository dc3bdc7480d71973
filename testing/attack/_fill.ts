// Fills the `@@name@@` placeholders of a JSON template. A value placed inside
// a JSON string is escaped for it (a path may hold a backslash); `repeat`
// text is template text already, so it is copied as written.

import { concatBytes } from "../../internal/concat_bytes.ts";

const PLACEHOLDER = /@@([a-z_]+)(?::(\d+):([^@]*))?@@/g;
const BYTES = /@@bytes:([0-9a-f ]+)@@/g;

/**
 * Fills placeholders from `values`; a name missing from it throws. `repeatCap`
 * bounds `@@repeat@@` counts, for a copy that is only checked, not sent.
 */
export function fill(template: string, values: Readonly<Record<string, string>>, repeatCap = Infinity): string {
  let out = "";
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const [whole, name, count, text] = match;
    out += template.slice(last, match.index);
    last = match.index + whole.length;
    if (name === "repeat") {
      out += (text ?? "").repeat(Math.min(Number(count), repeatCap));
      continue;
    }
    const value = values[name];
    if (value === undefined) throw new RangeError(`Cannot fill placeholder "@@${name}@@": it is not known`);
    out += insideString(template, match.index) ? JSON.stringify(value).slice(1, -1) : value;
  }
  return out + template.slice(last);
}

/** Whether `index` of JSON text `text` lies inside a string literal. */
function insideString(text: string, index: number): boolean {
  let inside = false;
  for (let i = 0; i < index; i++) {
    const c = text[i];
    if (c === "\\" && inside) i++;
    else if (c === '"') inside = !inside;
  }
  return inside;
}

/** Encodes a filled line as UTF-8, with `@@bytes:ff fe@@` written as those raw bytes. */
export function encodeLine(line: string): Uint8Array {
  const encoder = new TextEncoder();
  const parts: Uint8Array[] = [];
  let last = 0;
  for (const match of line.matchAll(BYTES)) {
    parts.push(encoder.encode(line.slice(last, match.index)));
    parts.push(Uint8Array.from(match[1].trim().split(/\s+/), (h) => parseInt(h, 16)));
    last = match.index + match[0].length;
  }
  parts.push(encoder.encode(line.slice(last) + "\n"));
  return concatBytes(parts);
}
