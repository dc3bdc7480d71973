// Deny globs over root-relative paths, matched segment by segment: `**` is
// any number of whole segments, `*` any run of characters within a segment,
// `?` one character (code point). Matching ignores case, because a deny list that a
// case-insensitive file system could sidestep protects nothing.
//
// A glob runs as a small automaton over a path's segments: its state is the
// set of places in the pattern the segments so far can have reached. So the
// segments of a folder are matched once, and each name in it then costs one
// step per glob, whatever the folder's depth ({@linkcode namesIn}).

import { quote } from "../internal/quote.ts";
import { matchWildcard } from "./wildcard.ts";

/** A compiled deny glob: tests a root-relative path with `/` separators. */
export interface GlobMatcher {
  (relativePath: string): boolean;
  /** The pattern's segments lower-cased and folded, for {@linkcode namesIn}. */
  readonly compiled: CompiledGlob;
}

/** A pattern's segments, as {@linkcode compileGlob} matches them. */
export interface CompiledGlob {
  readonly lower: readonly string[];
  readonly folded: readonly string[];
  /** Whether the pattern has no unit above U+007F. */
  readonly ascii: boolean;
}

/**
 * How many path segments deny globs have compared with a pattern segment,
 * ever. Tests read it to prove that a listing's names cost the same whatever
 * the folder's depth.
 */
export const globWork = { segments: 0 };

// No unit above U+007F (an astral character is two units above it).
const ASCII = /^[^\u0080-\uffff]*$/;
const WILDCARD = /[*?]/;

/**
 * Compiles `pattern`; throws a TypeError for `.`/`..` segments or empty ones.
 * A path matches when the pattern matches it lower-cased, or both folded by
 * {@linkcode foldCase}: lower-casing keeps `?` one character of the name as
 * written (`stra?e` denies `straße`), folding equates what file systems do
 * (`ſecret.txt` is `secret.txt` on NTFS).
 */
export function compileGlob(pattern: string): GlobMatcher {
  const compiled: CompiledGlob = {
    lower: segmentsOf(pattern.toLowerCase(), pattern),
    folded: segmentsOf(foldCase(pattern), pattern),
    ascii: ASCII.test(pattern),
  };
  const matcher = (relativePath: string) => {
    const path = pathForms(relativePath);
    if (accepts(compiled.lower, run(compiled.lower, path.lower))) return true;
    // An ASCII name folds as it lower-cases: the second match would repeat the first.
    if (compiled.ascii && path.ascii) return false;
    return accepts(compiled.folded, run(compiled.folded, path.folded()));
  };
  return Object.assign(matcher, { compiled });
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
  const forms = formsOf(path);
  last = { path, forms };
  return forms;
}

function formsOf(path: string): PathForms {
  let folded: string[] | undefined;
  return {
    ascii: ASCII.test(path),
    lower: partsOf(path.toLowerCase()),
    folded: () => folded ??= partsOf(foldCase(path)),
  };
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

/** Whether any of `patterns` matches `relativePath` as a whole. */
export function matchesAny(matchers: readonly GlobMatcher[], relativePath: string): boolean {
  return matchers.some((match) => match(relativePath));
}

/**
 * Whether any of `matchers` matches `relativePath` or a folder on the way to
 * it (`a` and `a/b` for `a/b/c`), as `.gitignore` reads its patterns: what
 * lies in a denied folder is denied. One pass over the segments, as a whole
 * match: the automaton accepts after any segment.
 */
export function matchesOrInside(matchers: readonly GlobMatcher[], relativePath: string): boolean {
  const path = pathForms(relativePath);
  return matchers.some(({ compiled }) =>
    acceptsAlong(compiled.lower, path.lower) ||
    (!(compiled.ascii && path.ascii) && acceptsAlong(compiled.folded, path.folded()))
  );
}

/**
 * Whether any of `matchers` matches a name in `folder` (a root-relative path
 * with `/` separators, `""` for the root), or the folder itself is denied:
 * `namesIn(m, folder)(name)` is `matchesOrInside(m, folder + "/" + name)`.
 * The folder's segments are lower-cased,
 * folded and matched once here; each name then costs one step per glob. Case
 * mapping and normalisation never reach across a `/` (it is neither cased,
 * case-ignorable nor composing), so a path's forms are its segments' forms.
 */
export function namesIn(matchers: readonly GlobMatcher[], folder: string): (name: string) => boolean {
  // Everything in a denied folder is denied.
  if (matchesOrInside(matchers, folder)) return () => true;
  const forms = pathForms(folder);
  const states = matchers.map(({ compiled }) => ({
    compiled,
    lower: run(compiled.lower, forms.lower),
    folded: undefined as number[] | undefined,
  }));
  return (name) => {
    if (name.includes("/")) return matchesOrInside(matchers, folder === "" ? name : `${folder}/${name}`);
    const ascii = forms.ascii && ASCII.test(name);
    const lower = name.toLowerCase();
    let folded: string | undefined;
    for (const state of states) {
      const { compiled } = state;
      if (state.lower.length > 0 && accepts(compiled.lower, step(compiled.lower, state.lower, lower))) return true;
      if (compiled.ascii && ascii) continue;
      state.folded ??= run(compiled.folded, forms.folded());
      if (state.folded.length === 0) continue;
      folded ??= foldCase(name);
      if (accepts(compiled.folded, step(compiled.folded, state.folded, folded))) return true;
    }
    return false;
  };
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

/** The state after `parts` from the start: stops early once no place is left. */
function run(pattern: readonly string[], parts: readonly string[]): number[] {
  let state = closure(pattern, [0]);
  for (let i = 0; i < parts.length && state.length > 0; i++) state = step(pattern, state, parts[i]);
  return state;
}

/** Whether the pattern accepts after some prefix of `parts` (none, some or all of them). */
function acceptsAlong(pattern: readonly string[], parts: readonly string[]): boolean {
  let state = closure(pattern, [0]);
  for (let i = 0; !accepts(pattern, state); i++) {
    if (i === parts.length || state.length === 0) return false;
    state = step(pattern, state, parts[i]);
  }
  return true;
}

/** The places reached from `state` by one more segment: `**` takes it and stays, another segment matches it. */
function step(pattern: readonly string[], state: readonly number[], part: string): number[] {
  const next: number[] = [];
  for (const at of state) {
    if (at === pattern.length) continue;
    const segment = pattern[at];
    if (segment === "**") {
      if (!next.includes(at)) next.push(at);
      continue;
    }
    globWork.segments++;
    const matches = WILDCARD.test(segment) ? matchWildcard(segment, part) : segment === part;
    if (matches && !next.includes(at + 1)) next.push(at + 1);
  }
  return closure(pattern, next);
}

/** Adds the places a `**` can skip to without taking a segment. */
function closure(pattern: readonly string[], state: number[]): number[] {
  for (let i = 0; i < state.length; i++) {
    const at = state[i];
    if (pattern[at] === "**" && !state.includes(at + 1)) state.push(at + 1);
  }
  return state;
}

function accepts(pattern: readonly string[], state: readonly number[]): boolean {
  return state.includes(pattern.length);
}
