/**
 * Wildcard match of a whole string: `*` is any run of characters (none
 * included), `?` exactly one, every other character itself. It works on code
 * points, so `?` matches one emoji as it matches one letter. It keeps one
 * backtrack point (the last `*`), so its work is at most the pattern's length
 * times the text's, never exponential as a backtracking regular expression's
 * can be: a hostile pattern cannot make it hang.
 * Case matters: lower-case both sides to ignore it (deny globs also try
 * both folded as file systems fold them). It is what deny globs match each
 * path segment with; servers can use it for name filters.
 *
 * @param pattern The wildcard pattern.
 * @param text The whole string to test.
 * @returns Whether `pattern` matches all of `text`.
 *
 * @example
 * ```ts
 * import { matchWildcard } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(matchWildcard("*.md", "README.md"));
 * assert.ok(matchWildcard("note?.txt", "note😀.txt"));
 * assert.ok(!matchWildcard("*.md", "README.md.bak"));
 * ```
 */
export function matchWildcard(pattern: string, text: string): boolean {
  const p = [...pattern];
  const t = [...text];
  let pi = 0;
  let ti = 0;
  let star = -1;
  let mark = 0;
  while (ti < t.length) {
    if (pi < p.length && (p[pi] === "?" || p[pi] === t[ti])) {
      pi++;
      ti++;
    } else if (pi < p.length && p[pi] === "*") {
      star = pi++;
      mark = ti;
    } else if (star !== -1) {
      // Let the last `*` take one more character and retry from there.
      pi = star + 1;
      ti = ++mark;
    } else {
      return false;
    }
  }
  while (pi < p.length && p[pi] === "*") pi++;
  return pi === p.length;
}
