// The structure of an ECMA-262 pattern in Unicode mode (the `u` flag), as a
// tree the linear matcher compiles. Only the structure is read here: what a
// character class, `.`, `\d`, `\p{…}` or an escape matches is left to V8,
// one code point at a time (see _regex_classes.ts), so no class is
// reimplemented. The source has already compiled with `new RegExp(source,
// "u")`, so the parser may trust its syntax.

/**
 * One step that consumes exactly one code point: a class, `.`, a class
 * escape, an escape or a literal. `literal` is set when it is one known code
 * point compared as is (no `i` modifier around it); otherwise `source`,
 * compiled with `flags`, decides.
 */
export interface Atom {
  readonly source: string;
  readonly flags: string;
  readonly literal: number | undefined;
}

/** A zero-width test of the position: its neighbours, or the string's ends. */
export type Assertion =
  | "begin"
  | "end"
  | "line-begin"
  | "line-end"
  | "word"
  | "not-word"
  | "word-i"
  | "not-word-i";

/** A parsed pattern. Groups are gone: nothing reads what they captured, except a backreference. */
export type Node =
  | { readonly kind: "empty" }
  | { readonly kind: "atom"; readonly atom: Atom }
  | { readonly kind: "concat"; readonly items: readonly Node[] }
  | { readonly kind: "alt"; readonly items: readonly Node[] }
  | { readonly kind: "repeat"; readonly body: Node; readonly min: number; readonly max: number; readonly text: string }
  | { readonly kind: "assert"; readonly test: Assertion }
  | { readonly kind: "look"; readonly body: Node; readonly behind: boolean; readonly negate: boolean }
  | { readonly kind: "backref"; readonly text: string };

interface Modes {
  readonly i: boolean;
  readonly m: boolean;
  readonly s: boolean;
}

const EMPTY: Node = { kind: "empty" };
/** Counts above this are kept at it: no pattern this engine accepts can expand that far. */
const COUNT_CAP = 2 ** 31;
const COUNT = /\{(\d+)(,(\d*))?\}/y;
const CONTROL: Record<string, number> = { f: 0x0c, n: 0x0a, r: 0x0d, t: 0x09, v: 0x0b, "0": 0 };

/**
 * The tree of `source`, a pattern that compiles with the `u` flag.
 *
 * @throws {SyntaxError} When the source is not what the `u` flag accepts (a caller that checked it first never sees it).
 */
export function parsePattern(source: string): Node {
  const parser = new Parser(source);
  const tree = parser.disjunction({ i: false, m: false, s: false });
  if (parser.at < source.length) throw new SyntaxError(`Cannot parse the pattern: unexpected ")" at ${parser.at}`);
  return tree;
}

class Parser {
  at = 0;

  constructor(readonly src: string) {}

  disjunction(modes: Modes): Node {
    const items = [this.#alternative(modes)];
    while (this.src[this.at] === "|") {
      this.at++;
      items.push(this.#alternative(modes));
    }
    return items.length === 1 ? items[0] : { kind: "alt", items };
  }

  #alternative(modes: Modes): Node {
    const items: Node[] = [];
    while (this.at < this.src.length && this.src[this.at] !== "|" && this.src[this.at] !== ")") {
      const start = this.at;
      const term = this.#term(modes);
      items.push(this.#quantified(term, start));
    }
    if (items.length === 0) return EMPTY;
    return items.length === 1 ? items[0] : { kind: "concat", items };
  }

  #term(modes: Modes): Node {
    const src = this.src;
    const c = src[this.at];
    if (c === "^" || c === "$") {
      this.at++;
      const test = c === "^" ? (modes.m ? "line-begin" : "begin") : (modes.m ? "line-end" : "end");
      return { kind: "assert", test };
    }
    if (c === "(") return this.#group(modes);
    if (c === "[") return this.#atom(this.#classEnd(), modes, undefined);
    if (c === ".") return this.#atom(this.at + 1, modes, undefined);
    if (c === "\\") return this.#escape(modes);
    const cp = src.codePointAt(this.at)!;
    return this.#atom(this.at + (cp > 0xffff ? 2 : 1), modes, cp);
  }

  #group(modes: Modes): Node {
    const src = this.src;
    let inner = modes;
    let look: { behind: boolean; negate: boolean } | undefined;
    if (src.startsWith("(?=", this.at) || src.startsWith("(?!", this.at)) {
      look = { behind: false, negate: src[this.at + 2] === "!" };
      this.at += 3;
    } else if (src.startsWith("(?<=", this.at) || src.startsWith("(?<!", this.at)) {
      look = { behind: true, negate: src[this.at + 3] === "!" };
      this.at += 4;
    } else if (src.startsWith("(?<", this.at)) {
      this.at = src.indexOf(">", this.at) + 1;
    } else if (src.startsWith("(?", this.at)) {
      const colon = src.indexOf(":", this.at);
      inner = withModifiers(modes, src.slice(this.at + 2, colon));
      this.at = colon + 1;
    } else {
      this.at++;
    }
    const body = this.disjunction(inner);
    if (src[this.at] !== ")") throw new SyntaxError(`Cannot parse the pattern: a group opened is not closed`);
    this.at++;
    return look === undefined ? body : { kind: "look", body, ...look };
  }

  /** Where the class that opens at `this.at` ends (after its `]`). */
  #classEnd(): number {
    const src = this.src;
    let j = this.at + 1;
    if (src[j] === "^") j++;
    while (j < src.length && src[j] !== "]") j += src[j] === "\\" ? 2 : 1;
    if (j >= src.length) throw new SyntaxError("Cannot parse the pattern: a class opened is not closed");
    return j + 1;
  }

  #escape(modes: Modes): Node {
    const src = this.src;
    const c = src[this.at + 1];
    const start = this.at;
    if (c === "b" || c === "B") {
      this.at += 2;
      const test = c === "b" ? (modes.i ? "word-i" : "word") : (modes.i ? "not-word-i" : "not-word");
      return { kind: "assert", test };
    }
    if (c >= "1" && c <= "9") {
      let j = this.at + 2;
      while (src[j] >= "0" && src[j] <= "9") j++;
      this.at = j;
      return { kind: "backref", text: src.slice(start, j) };
    }
    if (c === "k") {
      this.at = src.indexOf(">", this.at) + 1;
      return { kind: "backref", text: src.slice(start, this.at) };
    }
    if (c === "p" || c === "P") return this.#atom(src.indexOf("}", this.at) + 1, modes, undefined);
    if (c === "u") return this.#atom(this.#unicodeEscapeEnd(), modes, undefined);
    if (c === "x") return this.#atom(this.at + 4, modes, undefined);
    if (c === "c") return this.#atom(this.at + 3, modes, undefined);
    if ("dDwWsS".includes(c)) return this.#atom(this.at + 2, modes, undefined);
    const known = CONTROL[c];
    // What is left is an identity escape of a syntax character, `/` or `-`: the character itself.
    return this.#atom(this.at + 2, modes, known ?? src.codePointAt(this.at + 1)!);
  }

  /** Where `\u…` ends: `\u{…}`, `\uXXXX`, or a lead and trail surrogate written as two, which is one code point. */
  #unicodeEscapeEnd(): number {
    const src = this.src;
    if (src[this.at + 2] === "{") return src.indexOf("}", this.at) + 1;
    const lead = parseInt(src.slice(this.at + 2, this.at + 6), 16);
    if (lead >= 0xd800 && lead <= 0xdbff && src.startsWith("\\u", this.at + 6)) {
      const trail = parseInt(src.slice(this.at + 8, this.at + 12), 16);
      if (/^[0-9A-Fa-f]{4}$/.test(src.slice(this.at + 8, this.at + 12)) && trail >= 0xdc00 && trail <= 0xdfff) {
        return this.at + 12;
      }
    }
    return this.at + 6;
  }

  /** The atom from `this.at` to `end`; a literal code point is compared as is unless `i` folds case. */
  #atom(end: number, modes: Modes, literal: number | undefined): Node {
    const source = this.src.slice(this.at, end);
    this.at = end;
    const flags = `u${modes.i ? "i" : ""}${modes.s ? "s" : ""}`;
    return { kind: "atom", atom: { source, flags, literal: modes.i ? undefined : literal } };
  }

  #quantified(term: Node, start: number): Node {
    const src = this.src;
    let min: number;
    let max: number;
    const c = src[this.at];
    if (c === "*" || c === "+" || c === "?") {
      this.at++;
      [min, max] = c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    } else if (c === "{") {
      COUNT.lastIndex = this.at;
      const count = COUNT.exec(src);
      if (count === null) return term;
      this.at += count[0].length;
      min = Math.min(Number(count[1]), COUNT_CAP);
      max = count[2] === undefined ? min : count[3] === "" ? Infinity : Math.min(Number(count[3]), COUNT_CAP);
    } else {
      return term;
    }
    // A lazy quantifier matches the same strings: only which match is found first differs.
    if (src[this.at] === "?") this.at++;
    return { kind: "repeat", body: term, min, max, text: src.slice(start, this.at) };
  }
}

function withModifiers(modes: Modes, spec: string): Modes {
  const [on, off = ""] = spec.split("-");
  const pick = (flag: "i" | "m" | "s") => off.includes(flag) ? false : on.includes(flag) ? true : modes[flag];
  return { i: pick("i"), m: pick("m"), s: pick("s") };
}
