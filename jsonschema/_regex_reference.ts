// Test support, imported only by _regex_test.ts. A second opinion for the differential test: ECMA-262's backtracking
// semantics written out directly over the parsed tree (exponential, so only
// for short strings), with V8 deciding each atom on one code point as the
// matcher does. Where V8's whole-pattern verdict differs from the matcher's,
// this decides whether V8 contradicts the specification: the differential
// test counts those cases apart and bounds them, and every other disagreement
// fails it.
import { codePointAt, codePointBefore } from "./_regex_classes.ts";
import { type Atom, type Node, parsePattern } from "./_regex_syntax.ts";

const atomTests = new Map<string, RegExp>();

function atomMatches(atom: Atom, cp: number): boolean {
  if (atom.literal !== undefined) return cp === atom.literal;
  const key = `${atom.flags}/${atom.source}`;
  let re = atomTests.get(key);
  if (re === undefined) atomTests.set(key, re = new RegExp(`^(?:${atom.source})$`, atom.flags));
  return re.test(String.fromCodePoint(cp));
}

/** Between the halves of a surrogate pair, where V8 also tries a match but reads nothing. */
function insidePair(text: string, i: number): boolean {
  const c = text.charCodeAt(i - 1);
  const d = text.charCodeAt(i);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff;
}

function isWord(text: string, i: number, before: boolean, ignoreCase: boolean): boolean {
  if (before ? i <= 0 : i >= text.length) return false;
  if (insidePair(text, i)) return false;
  const cp = before ? codePointBefore(text, i) : codePointAt(text, i);
  return (ignoreCase ? /^\w$/ui : /^\w$/u).test(String.fromCodePoint(cp));
}

function isLine(cp: number): boolean {
  return cp === 0x0a || cp === 0x0d || cp === 0x2028 || cp === 0x2029;
}

function asserts(test: string, text: string, i: number): boolean {
  const inside = insidePair(text, i);
  switch (test) {
    case "begin":
      return i === 0;
    case "end":
      return i === text.length;
    case "line-begin":
      return i === 0 || !inside && isLine(codePointBefore(text, i));
    case "line-end":
      return i === text.length || !inside && isLine(codePointAt(text, i));
    default: {
      const ignoreCase = test.endsWith("-i");
      const boundary = isWord(text, i, true, ignoreCase) !== isWord(text, i, false, ignoreCase);
      return test.startsWith("not-") ? !boundary : boundary;
    }
  }
}

function match(node: Node, text: string, i: number, backward: boolean, k: (j: number) => boolean): boolean {
  switch (node.kind) {
    case "empty":
      return k(i);
    case "atom": {
      if ((backward ? i <= 0 : i >= text.length) || insidePair(text, i)) return false;
      const cp = backward ? codePointBefore(text, i) : codePointAt(text, i);
      const size = cp > 0xffff ? 2 : 1;
      return atomMatches(node.atom, cp) && k(backward ? i - size : i + size);
    }
    case "concat": {
      const items = backward ? node.items.toReversed() : node.items;
      const from = (n: number, j: number): boolean =>
        n === items.length ? k(j) : match(items[n], text, j, backward, (next) => from(n + 1, next));
      return from(0, i);
    }
    case "alt":
      return node.items.some((item) => match(item, text, i, backward, k));
    case "repeat": {
      const { body, min, max } = node;
      // ECMA-262's RepeatMatcher: past the minimum, an iteration that consumes nothing fails.
      const repeat = (count: number, j: number): boolean =>
        count < min
          ? match(body, text, j, backward, (next) => repeat(count + 1, next))
          : (count < max && match(body, text, j, backward, (next) => next !== j && repeat(count + 1, next))) || k(j);
      return repeat(0, i);
    }
    case "assert":
      return asserts(node.test, text, i) && k(i);
    case "look": {
      const found = match(node.body, text, i, node.behind, () => true);
      return found !== node.negate && k(i);
    }
    case "backref":
      throw new TypeError("Cannot follow a backreference in the reference matcher");
  }
}

/**
 * Whether `source` matches `text` by ECMA-262's semantics, tried at every
 * UTF-16 index as V8 does (an index inside a surrogate pair reads nothing).
 */
export function referenceTest(source: string, text: string): boolean {
  const tree = parsePattern(source);
  for (let i = 0; i <= text.length; i++) if (match(tree, text, i, false, () => true)) return true;
  return false;
}
