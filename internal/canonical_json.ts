// Canonical JSON: the audit trail digests arguments with it, and a requestState binds
// them with it, so the same arguments in another key order are the same call.

/** A piece of punctuation on the serializer's stack, told apart from values. */
class Token {
  /** `leaves`: the array or object this token closes, no longer an ancestor of what follows. */
  constructor(readonly text: string, readonly leaves?: object) {}
}

/**
 * JSON with object keys sorted at every level (UTF-16 code-unit order, as
 * `Array.prototype.sort` does), no whitespace, strings and numbers exactly as
 * `JSON.stringify` writes them, and members whose value is `undefined` left
 * out. For values parsed from JSON this is RFC 8785 (JCS), so an operator can
 * rebuild it by hand. Iterative: arguments nested 100k deep cannot overflow
 * the stack (`JSON.stringify` with a replacer would).
 *
 * @throws {TypeError} When the value refers to itself (a handler's object, never parsed JSON): without the check
 * the loop would never end.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  writeCanonical(value, (piece) => out.push(piece));
  return out.join("");
}

/** A string longer than this is written in escaped slices of this many units, never whole. */
const SLICE_UNITS = 64 * 1024;

/**
 * Hands the canonical JSON of `value` ({@linkcode canonicalJson}) to `emit`
 * piece by piece, in order, without ever building the whole text: a long
 * string is escaped a slice at a time (never between the halves of a
 * surrogate pair). A digest fed this way costs the value's size in time, not
 * in memory.
 *
 * @throws {TypeError} When the value refers to itself.
 */
export function writeCanonical(value: unknown, emit: (piece: string) => void): void {
  const stack: unknown[] = [value];
  const ancestors = new Set<object>();
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Token) {
      emit(item.text);
      if (item.leaves !== undefined) ancestors.delete(item.leaves);
    } else if (typeof item === "string" && item.length > SLICE_UNITS) {
      writeLongString(item, emit);
    } else if (item === null || typeof item !== "object") {
      emit(JSON.stringify(item) ?? "null");
    } else if (ancestors.has(item)) {
      throw new TypeError("Cannot write canonical JSON: the value refers to itself");
    } else if (Array.isArray(item)) {
      ancestors.add(item);
      stack.push(new Token("]", item));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("["));
    } else {
      ancestors.add(item);
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
      stack.push(new Token("}", item));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(record[keys[i]], new Token(`${JSON.stringify(keys[i])}:`));
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("{"));
    }
  }
}

/** `JSON.stringify(text)`, emitted in escaped slices. */
function writeLongString(text: string, emit: (piece: string) => void): void {
  emit('"');
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + SLICE_UNITS, text.length);
    // Escaped apart, the halves of a pair would be two lone surrogates: \ud83d\ude00 instead of the character.
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end--;
    emit(JSON.stringify(text.slice(start, end)).slice(1, -1));
    start = end;
  }
  emit('"');
}
