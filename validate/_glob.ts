// Deny globs over root-relative paths, matched segment by segment: `**` is
// any number of whole segments, `*` any run of characters within a segment,
// `?` one character (code point). Matching ignores case, because a deny list that a
// case-insensitive file system could sidestep protects nothing.

import { quote } from "../internal/quote.ts";
import { matchWildcard } from "./wildcard.ts";

/** Tests a root-relative path with `/` separators. */
export type GlobMatcher = (relativePath: string) => boolean;

/** Compiles `pattern`; throws a TypeError for `.`/`..` segments or empty ones. */
export function compileGlob(pattern: string): GlobMatcher {
  const segments = pattern.toLowerCase().replace(/^\/+/, "").split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") {
      throw new TypeError(`Cannot compile deny glob ${quote(pattern)}: empty, "." or ".." segment`);
    }
  }
  return (relativePath) => {
    const parts = relativePath === "" ? [] : relativePath.toLowerCase().split("/");
    return matchSegments(segments, 0, parts, 0);
  };
}

/** Whether any of `patterns` matches `relativePath`. */
export function matchesAny(matchers: readonly GlobMatcher[], relativePath: string): boolean {
  return matchers.some((match) => match(relativePath));
}

function matchSegments(pattern: readonly string[], pi: number, parts: readonly string[], si: number): boolean {
  while (pi < pattern.length) {
    const segment = pattern[pi];
    if (segment === "**") {
      // Collapse runs of `**`, then try every split point.
      while (pi < pattern.length && pattern[pi] === "**") pi++;
      if (pi === pattern.length) return true;
      for (let k = si; k <= parts.length; k++) {
        if (matchSegments(pattern, pi, parts, k)) return true;
      }
      return false;
    }
    if (si >= parts.length || !matchWildcard(segment, parts[si])) return false;
    pi++;
    si++;
  }
  return si === parts.length;
}
