// git grep -E compiles its pattern with the C library's regcomp (glibc), which
// copies a repeated part once per repetition (`x{1,m}` is m copies of x, each
// but the first optional; `+` one copy; repetitions stack: `a{9}{9}` is 81)
// and then computes, for every node, the set of nodes reachable without input:
// memory grows with the square of the copies. `a{1,32767}` (10 bytes) took git
// past 1.6 GB in 5 s, `(){1,2000}` to 483 MB, and GIT_ALLOC_LIMIT does not
// apply (regcomp's allocations are not git's). The pattern is measured first.
import { PolicyError } from "@forge/toolkit/validate";

/**
 * The most nodes a pattern may expand to. Measured with git 2.39.5 and glibc
 * (peak RSS of `git grep -E`): at this size the worst shape found
 * (`(){1,682}`, a group of nothing repeated) takes git 61 MiB, `a{1,1023}`
 * 21 MiB, `\w{1,1023}` 38 MiB; a pattern of 1,000 plain characters counts 1,000.
 */
export const MAX_PATTERN_NODES = 2048;

const OPEN = 0x28, CLOSE = 0x29, BAR = 0x7c, BACKSLASH = 0x5c, BRACKET = 0x5b, END_BRACKET = 0x5d, CARET = 0x5e;
const STAR = 0x2a, PLUS = 0x2b, QUESTION = 0x3f, BRACE = 0x7b, END_BRACE = 0x7d, COMMA = 0x2c;

/**
 * How many nodes glibc's regcomp builds for a POSIX ERE, counted from above
 * (never less than glibc builds): an atom (a byte, `.`, an anchor, an escape,
 * a bracket expression) is 1; a group its inside and 2; `*` and `?` one more;
 * `+` the part twice and 1; `{n,m}` (`{n}`, `{n,}`, `{,m}`) the part and 1,
 * as many times as the larger bound (the lower one and 1 when there is no
 * upper one), plus 1. Bytes of UTF-8 count one each (git runs under
 * `LC_ALL=C`). Stops counting once past `limit`.
 *
 * @param pattern The pattern as the caller gave it.
 * @param limit Counting stops past this many.
 * @returns The count, or `limit + 1` once past it; `undefined` for a bracket
 *   expression glibc could not read (`[[:` without its `:]`, no closing `]`).
 */
export function patternNodes(pattern: string, limit: number = MAX_PATTERN_NODES): number | undefined {
  const bytes = new TextEncoder().encode(pattern);
  let at = 0;
  let broken = false;
  const cap = (n: number) => Math.min(n, limit + 1);
  // One bracket expression from its `[`; returns false when glibc would refuse it.
  const bracket = (): boolean => {
    at++; // [
    if (bytes[at] === CARET) at++;
    if (bytes[at] === END_BRACKET) at++; // a `]` first is a member
    while (at < bytes.length) {
      const c = bytes[at];
      if (c === END_BRACKET) {
        at++;
        return true;
      }
      const next = bytes[at + 1];
      if (c === BRACKET && (next === 0x3a || next === 0x2e || next === 0x3d)) {
        // `[:name:]`, `[.x.]`, `[=x=]`: up to the same character and `]` (glibc reads at most 32 bytes of name).
        let end = at + 2;
        while (end + 1 < bytes.length && !(bytes[end] === next && bytes[end + 1] === END_BRACKET)) end++;
        if (end + 1 >= bytes.length) return false;
        at = end + 2;
        continue;
      }
      at++; // a member; a backslash is one too
    }
    return false;
  };
  // A number of an interval: digits, or none.
  const number = (): number | undefined => {
    let n: number | undefined;
    while (at < bytes.length && bytes[at] >= 0x30 && bytes[at] <= 0x39) {
      n = Math.min((n ?? 0) * 10 + bytes[at] - 0x30, 1e9);
      at++;
    }
    return n;
  };
  // `{n}`, `{n,}`, `{,m}`, `{n,m}` from its `{`: the factor, or undefined when it is none (then `{` is a byte).
  const interval = (): number | undefined => {
    const start = at;
    at++;
    const low = number();
    let high = low;
    let open = false;
    if (bytes[at] === COMMA) {
      at++;
      high = number();
      open = high === undefined;
    }
    if (bytes[at] !== END_BRACE) {
      at = start;
      return undefined;
    }
    at++;
    return open ? (low ?? 0) + 1 : Math.max(low ?? 0, high ?? 0, 1);
  };
  const atom = (): number => {
    const c = bytes[at];
    if (c === OPEN) {
      at++;
      const inside = alternation(1);
      if (bytes[at] === CLOSE) at++;
      return cap(inside + 2);
    }
    if (c === BRACKET) {
      if (!bracket()) broken = true;
      return 1;
    }
    at += c === BACKSLASH && at + 1 < bytes.length ? 2 : 1;
    return 1;
  };
  const repeated = (): number => {
    let n = atom();
    for (;;) {
      const c = bytes[at];
      if (c === STAR || c === QUESTION) {
        at++;
        n = cap(n + 1);
      } else if (c === PLUS) {
        at++;
        n = cap(2 * n + 1);
      } else if (c === BRACE) {
        const factor = interval();
        if (factor === undefined) return n;
        n = cap(factor * (n + 1) + 1);
      } else return n;
    }
  };
  // A sequence up to `|`, or `)` inside a group (an unmatched `)` is a byte in glibc's ERE).
  const sequence = (depth: number): number => {
    let n = 0;
    while (at < bytes.length && bytes[at] !== BAR && !(depth > 0 && bytes[at] === CLOSE)) n = cap(n + repeated());
    return n;
  };
  const alternation = (depth: number): number => {
    let n = sequence(depth);
    while (bytes[at] === BAR) {
      at++;
      n = cap(n + 1 + sequence(depth));
    }
    return n;
  };
  const total = alternation(0);
  return broken ? undefined : total;
}

/**
 * Refuses a `git_grep` pattern whose compiled form would take git past
 * {@linkcode MAX_PATTERN_NODES} nodes, and one with a bracket expression glibc
 * could not read (git would refuse it too).
 *
 * @param pattern The caller's pattern (already checked for its length).
 * @throws {PolicyError} When it is refused.
 */
export function assertSmallPattern(pattern: string): void {
  const nodes = patternNodes(pattern);
  if (nodes === undefined) {
    throw new PolicyError("invalid-input", "Cannot use pattern: it holds a bracket expression that is not closed");
  }
  if (nodes > MAX_PATTERN_NODES) {
    throw new PolicyError(
      "invalid-input",
      `Cannot use pattern: its repetitions expand to over ${MAX_PATTERN_NODES} parts, the most this server lets git ` +
        "compile (the memory git's regular expressions take grows with the square of that number); repeat less",
    );
  }
}
