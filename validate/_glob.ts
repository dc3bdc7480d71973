// Deny globs over root-relative paths, matched segment by segment: `**` is
// any number of whole segments, `*` any run of characters within a segment,
// `?` one character (code point). Matching ignores case, because a deny list that a
// case-insensitive file system could sidestep protects nothing.

import { quote } from "../internal/quote.ts";
import { matchWildcard } from "./wildcard.ts";

/** Tests a root-relative path with `/` separators. */
export type GlobMatcher = (relativePath: string) => boolean;

// No unit above U+007F (an astral character is two units above it).
const ASCII = /^[^\u0080-\uffff]*$/;

/**
 * Compiles `pattern`; throws a TypeError for `.`/`..` segments or empty ones.
 * A path matches when the pattern matches it lower-cased, or both folded by
 * {@linkcode foldCase}: lower-casing keeps `?` one character of the name as
 * written (`stra?e` denies `straße`), folding equates what file systems do
 * (`ſecret.txt` is `secret.txt` on NTFS).
 */
export function compileGlob(pattern: string): GlobMatcher {
  const lower = segmentsOf(pattern.toLowerCase(), pattern);
  const folded = segmentsOf(foldCase(pattern), pattern);
  const asciiPattern = ASCII.test(pattern);
  return (relativePath) => {
    const path = pathForms(relativePath);
    if (matchSegments(lower, 0, path.lower, 0)) return true;
    // An ASCII name folds as it lower-cases: the second match would repeat the first.
    if (asciiPattern && path.ascii) return false;
    return matchSegments(folded, 0, path.folded(), 0);
  };
}

interface PathForms {
  ascii: boolean;
  lower: string[];
  folded: () => string[];
}

// Every glob of a jail judges the same path in turn: its forms are made once, not once per glob.
let last: { path: string; forms: PathForms } | undefined;

function pathForms(path: string): PathForms {
  if (last?.path === path) return last.forms;
  let folded: string[] | undefined;
  const forms = {
    ascii: ASCII.test(path),
    lower: partsOf(path.toLowerCase()),
    folded: () => folded ??= partsOf(foldCase(path)),
  };
  last = { path, forms };
  return forms;
}

/**
 * Folds case at least as far as case-insensitive file systems do, so that
 * names one of them takes for the same file fold alike: NTFS upper-cases
 * one unit at a time (`ſ` is `S`, `ı` is `I`); ext4's casefold and APFS
 * fold fully (`ß` and `ẞ` are `ss`, `ﬁ` is `fi`, `ς` is `σ`) and take
 * canonically equivalent spellings (`é` composed or not) for the same.
 * Lower-casing the upper case of the lower case does all three (checked
 * against Python's `str.casefold()` and upper case for every code point);
 * `ς` is made `σ` by hand, as lower-casing picks it by context.
 */
export function foldCase(text: string): string {
  return text.normalize("NFD").toLowerCase().toUpperCase().toLowerCase().replaceAll("ς", "σ").normalize("NFC");
}

/** Whether any of `patterns` matches `relativePath`. */
export function matchesAny(matchers: readonly GlobMatcher[], relativePath: string): boolean {
  return matchers.some((match) => match(relativePath));
}

function segmentsOf(text: string, pattern: string): string[] {
  const segments = text.replace(/^\/+/, "").split("/");
  for (const segment of segments) {
    if (segment === "" || segment === "." || segment === "..") {
      throw new TypeError(`Cannot compile deny glob ${quote(pattern)}: empty, "." or ".." segment`);
    }
  }
  return segments;
}

function partsOf(path: string): string[] {
  return path === "" ? [] : path.split("/");
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
