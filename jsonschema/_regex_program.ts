// A parsed pattern compiled to a Thompson NFA: a program of instructions
// that the matchers (_regex_nfa.ts, _regex_dfa.ts) run as a set of threads,
// one per instruction at most, so a string of n code points costs at most n
// times the program's size. Each lookaround's body is a program of its own
// in the same arrays (a lookahead's reversed, since it is run from the
// string's end): the matcher turns it into a table of the positions where
// it holds before the pattern runs.

import type { Assertion, Atom, Node } from "./_regex_syntax.ts";

/** Consume one code point that atom `a` matches, go on at the next instruction. */
export const CHAR = 0;
/** Go on at both `a` and `b`. */
export const SPLIT = 1;
/** Go on at `a`. */
export const JMP = 2;
/** Go on at the next instruction when assertion `a` holds here. */
export const ASSERT = 3;
/** Go on at the next instruction when lookaround `a` holds here (or, `b` = 1, does not). */
export const LOOK = 4;
/** The body matched. */
export const MATCH = 5;

/** The assertions, numbered for the program. */
export const ASSERTIONS: readonly Assertion[] = [
  "begin",
  "end",
  "line-begin",
  "line-end",
  "word",
  "not-word",
  "word-i",
  "not-word-i",
];

/** A compiled pattern. */
export interface Program {
  /** Per instruction: its operation. */
  readonly op: Uint8Array;
  /** Per instruction: the atom, the target, the assertion or the lookaround. */
  readonly a: Int32Array;
  /** Per instruction: the second target of a split; 1 for a negative lookaround. */
  readonly b: Int32Array;
  /** The entry of the pattern (0), then of each lookaround's body, by lookaround number. */
  readonly starts: readonly number[];
  /** Per lookaround: whether it looks behind (its body runs forward) or ahead (reversed, run backward). */
  readonly behind: readonly boolean[];
  /** The distinct atoms, numbered as the CHAR instructions name them. */
  readonly atoms: readonly Atom[];
  /** The assertions the program uses, numbered as in ASSERTIONS. */
  readonly assertions: ReadonlySet<number>;
}

/** Thrown when the program would pass its limit; the caller refuses the pattern. */
export class ProgramTooLarge extends RangeError {
  constructor(readonly limit: number) {
    super(`Cannot compile the pattern: it takes more than ${limit} instructions`);
  }
}

/**
 * The program of `tree`, refusing one of more than `limit` instructions.
 * Only counted repetition can pass `2 × source length + 1`: it copies its
 * body up to its maximum count, and the copies are counted as they are
 * made, so a refusal costs at most `limit` steps.
 *
 * @throws {ProgramTooLarge} When the program passes `limit` instructions.
 * @throws {TypeError} When the tree holds a backreference, which no program can match.
 */
export function compileProgram(tree: Node, limit: number): Program {
  return new Builder(limit).build(tree);
}

class Builder {
  readonly op: number[] = [];
  readonly a: number[] = [];
  readonly b: number[] = [];
  readonly atoms: Atom[] = [];
  readonly #atomIds = new Map<string, number>();
  readonly assertions = new Set<number>();
  readonly looks: { body: Node; behind: boolean }[] = [];

  constructor(readonly limit: number) {}

  build(tree: Node): Program {
    const starts = [0];
    this.#node(tree, false);
    this.#emit(MATCH, 0, 0);
    // Bodies are compiled after the pattern; one nested in a body gets a later number.
    for (let k = 0; k < this.looks.length; k++) {
      starts.push(this.op.length);
      this.#node(this.looks[k].body, !this.looks[k].behind);
      this.#emit(MATCH, 0, 0);
    }
    return {
      op: Uint8Array.from(this.op),
      a: Int32Array.from(this.a),
      b: Int32Array.from(this.b),
      starts,
      behind: this.looks.map((look) => look.behind),
      atoms: this.atoms,
      assertions: this.assertions,
    };
  }

  #emit(op: number, a: number, b: number): number {
    if (this.op.length >= this.limit) throw new ProgramTooLarge(this.limit);
    this.op.push(op);
    this.a.push(a);
    this.b.push(b);
    return this.op.length - 1;
  }

  #node(node: Node, reversed: boolean): void {
    switch (node.kind) {
      case "empty":
        return;
      case "atom":
        this.#emit(CHAR, this.#atomId(node.atom), 0);
        return;
      case "concat": {
        const items = reversed ? node.items.toReversed() : node.items;
        for (const item of items) this.#node(item, reversed);
        return;
      }
      case "alt":
        return this.#alternatives(node.items, reversed);
      case "repeat":
        return this.#repeat(node.body, node.min, node.max, reversed);
      case "assert": {
        const id = ASSERTIONS.indexOf(node.test);
        this.assertions.add(id);
        this.#emit(ASSERT, id, 0);
        return;
      }
      case "look":
        this.#emit(LOOK, this.looks.length, node.negate ? 1 : 0);
        this.looks.push({ body: node.body, behind: node.behind });
        return;
      case "backref":
        throw new TypeError(`Cannot compile the pattern: ${node.text} is a backreference`);
    }
  }

  #alternatives(items: readonly Node[], reversed: boolean): void {
    const exits: number[] = [];
    for (let i = 0; i < items.length - 1; i++) {
      const split = this.#emit(SPLIT, this.op.length + 1, 0);
      this.#node(items[i], reversed);
      exits.push(this.#emit(JMP, 0, 0));
      this.b[split] = this.op.length;
    }
    this.#node(items[items.length - 1], reversed);
    for (const exit of exits) this.a[exit] = this.op.length;
  }

  #repeat(body: Node, min: number, max: number, reversed: boolean): void {
    if (max === 0) return;
    if (min > 0) {
      const first = this.op.length;
      this.#node(body, reversed);
      // A body of no instructions matches only the empty string, however often: no copies to make.
      if (this.op.length === first) return;
      if (max === Infinity && min === 1) {
        this.#emit(SPLIT, first, this.op.length + 1);
        return;
      }
      for (let i = 2; i < min; i++) this.#node(body, reversed);
      if (max === Infinity) {
        // `x{n,}`: the last required copy loops back on itself.
        const loop = this.op.length;
        this.#node(body, reversed);
        this.#emit(SPLIT, loop, this.op.length + 1);
        return;
      }
      if (min > 1) this.#node(body, reversed);
    }
    if (max === Infinity) {
      const loop = this.#emit(SPLIT, this.op.length + 1, 0);
      this.#node(body, reversed);
      this.#emit(JMP, loop, 0);
      this.b[loop] = this.op.length;
      return;
    }
    const skips: number[] = [];
    for (let i = min; i < max; i++) {
      skips.push(this.#emit(SPLIT, this.op.length + 1, 0));
      this.#node(body, reversed);
    }
    for (const skip of skips) this.b[skip] = this.op.length;
  }

  #atomId(atom: Atom): number {
    const key = atom.literal === undefined ? `${atom.flags}/${atom.source}` : `#${atom.literal}`;
    let id = this.#atomIds.get(key);
    if (id === undefined) {
      id = this.atoms.length;
      this.atoms.push(atom);
      this.#atomIds.set(key, id);
    }
    return id;
  }
}
