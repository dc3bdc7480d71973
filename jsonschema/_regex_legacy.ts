// Patterns written for ECMA-262's older syntax (Annex B), which the `u` flag
// refuses although they mean nothing unusual: an escaped punctuation mark
// that needs no escape (`\-`, `\#`, `\ ` outside a class, `\#` inside one)
// and a brace or bracket that is not syntax (`{` that starts no count, a
// lone `}` or `]`). Authors used to other dialects write these often. They
// are respelled for the `u` flag, which changes no match: each stays the one
// character it was. Every other Annex B form (octal escapes, `\8`, a
// quantified lookahead, `\c` without a letter) is left as written, and the
// caller refuses the pattern.

/** ASCII characters whose escape is an identity escape in both syntaxes, or a syntax of its own. */
const KEEP_ESCAPED = new Set("^$\\.*+?()[]{}|/");
const COUNT = /\{\d+(,\d*)?\}/y;

/**
 * The pattern respelled for the `u` flag: unneeded escapes of punctuation
 * dropped, and braces and brackets that are not syntax escaped.
 *
 * @param source A pattern the older syntax accepts.
 * @returns The same pattern in the `u` flag's spelling, as far as the forms above go.
 */
export function respellLegacy(source: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\" && i + 1 < source.length) {
      const next = source[i + 1];
      i++;
      if (isPunctuation(next) && !KEEP_ESCAPED.has(next) && !(inClass && next === "-")) {
        out += next;
      } else {
        out += c + next;
      }
      continue;
    }
    if (inClass) {
      if (c === "]") inClass = false;
      out += c;
      continue;
    }
    if (c === "[") {
      inClass = true;
      out += c;
      if (source[i + 1] === "^") out += source[++i];
      continue;
    }
    if (c === "{") {
      COUNT.lastIndex = i;
      const count = COUNT.exec(source);
      if (count !== null) {
        out += count[0];
        i += count[0].length - 1;
        continue;
      }
    }
    out += c === "{" || c === "}" || c === "]" ? `\\${c}` : c;
  }
  return out;
}

function isPunctuation(c: string): boolean {
  const code = c.charCodeAt(0);
  return code >= 0x21 && code <= 0x7e && !/[0-9A-Za-z]/.test(c) || c === " ";
}
