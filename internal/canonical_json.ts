// Canonical JSON: the audit trail digests arguments with it, and a requestState binds
// them with it, so the same arguments in another key order are the same call.

/** A piece of punctuation on the serializer's stack, told apart from values. */
class Token {
  constructor(readonly text: string) {}
}

/**
 * JSON with object keys sorted at every level (UTF-16 code-unit order, as
 * `Array.prototype.sort` does), no whitespace, strings and numbers exactly as
 * `JSON.stringify` writes them, and members whose value is `undefined` left
 * out. For values parsed from JSON this is RFC 8785 (JCS), so an operator can
 * rebuild it by hand. Iterative: arguments nested 100k deep cannot overflow
 * the stack (`JSON.stringify` with a replacer would).
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item instanceof Token) {
      out.push(item.text);
    } else if (item === null || typeof item !== "object") {
      out.push(JSON.stringify(item) ?? "null");
    } else if (Array.isArray(item)) {
      stack.push(new Token("]"));
      for (let i = item.length - 1; i >= 0; i--) {
        stack.push(item[i]);
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("["));
    } else {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).filter((k) => record[k] !== undefined).sort();
      stack.push(new Token("}"));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(record[keys[i]], new Token(`${JSON.stringify(keys[i])}:`));
        if (i > 0) stack.push(new Token(","));
      }
      stack.push(new Token("{"));
    }
  }
  return out.join("");
}
