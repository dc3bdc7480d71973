// A schema's regular expression compiled for a matcher whose work is linear:
// at most a constant times the program's size times the string's length,
// whatever the pattern and the string (see _regex_nfa.ts and _regex_dfa.ts).
// The verdicts are those of `new RegExp(source, "u").test(text)`: the
// structure is parsed here, but every class and escape is decided by V8 on
// one code point at a time.

import { CodePointClasses } from "./_regex_classes.ts";
import { LazyDfa } from "./_regex_dfa.ts";
import { PikeVm } from "./_regex_nfa.ts";
import { ASSERTIONS, compileProgram, LOOK, type Program } from "./_regex_program.ts";
import { type Node, parsePattern } from "./_regex_syntax.ts";
import { type Steps, Threads } from "./_regex_threads.ts";

/** The most instructions a program may have: counted repetitions are copied out, and this bounds the copies. */
export const PROGRAM_LIMIT = 20_000;

/** A pattern ready to test strings in linear time. */
export class LinearRegex implements Steps {
  /** The steps taken over every test so far (instructions visited, code points read). */
  steps = 0;
  readonly #program: Program;
  readonly #classes: CodePointClasses;
  readonly #matcher: LazyDfa | PikeVm;
  readonly #insidePairs: boolean;

  /**
   * @param program The compiled pattern.
   */
  constructor(program: Program) {
    this.#program = program;
    const uses = (...names: string[]) =>
      names.some((name) => program.assertions.has(ASSERTIONS.indexOf(name as never)));
    this.#classes = new CodePointClasses(program.atoms, {
      word: uses("word", "not-word"),
      wordIgnoreCase: uses("word-i", "not-word-i"),
      lines: uses("line-begin", "line-end"),
    });
    this.#matcher = program.op.includes(LOOK)
      ? new PikeVm(program, this.#classes, this)
      : new LazyDfa(program, this.#classes, this);
    this.#insidePairs = matchesInsidePair(program, this);
  }

  /** The program's size, in instructions: the unit of the linear bound. */
  get size(): number {
    return this.#program.op.length;
  }

  /** The string positions whose scratch tables the matcher keeps between tests (a pattern with lookarounds). */
  get keptPositions(): number {
    return this.#matcher instanceof PikeVm ? this.#matcher.keptPositions : 0;
  }

  /** Whether the pattern matches anywhere in `text`. */
  test(text: string): boolean {
    if (this.#insidePairs && hasPair(text, this)) return true;
    return this.#matcher.test(text);
  }
}

/**
 * Whether V8 finds a match that starts between the two halves of a surrogate
 * pair. Its search tries every UTF-16 index, and from inside a pair no code
 * point can be read (forward or backward) and neither neighbour is a word
 * character, so only a path of assertions matches there: `\B`, a negative
 * lookaround, a positive one whose body needs no code point. ECMA-262 starts
 * a `u` search on code points only, but the verdicts here are V8's.
 */
function matchesInsidePair(program: Program, counter: Steps): boolean {
  const threads = new Threads(program, counter);
  const list = new Int32Array(program.op.length);
  const looks: Uint8Array[] = [];
  for (let k = program.starts.length - 1; k >= 1; k--) {
    looks[k - 1] = Uint8Array.of(threads.closure(list, 0, program.starts[k], 0, looks, 0) < 0 ? 1 : 0);
  }
  return threads.closure(list, 0, 0, 0, looks, 0) < 0;
}

function hasPair(text: string, counter: Steps): boolean {
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        counter.steps += i;
        return true;
      }
    }
  }
  counter.steps += text.length;
  return false;
}

/**
 * The linear matcher of `source`, a pattern `new RegExp(source, "u")`
 * accepts, or the backreference that prevents one (`\1`, `\k<name>`): no
 * linear-time matcher can follow what a group captured.
 *
 * @throws {ProgramTooLarge} When its counted repetitions expand past PROGRAM_LIMIT instructions.
 */
export function linearRegex(source: string): LinearRegex | { backreference: string } {
  const tree = parsePattern(source);
  const backreference = findBackreference(tree);
  if (backreference !== undefined) return { backreference };
  return new LinearRegex(compileProgram(tree, PROGRAM_LIMIT));
}

function findBackreference(node: Node): string | undefined {
  switch (node.kind) {
    case "backref":
      return node.text;
    case "concat":
    case "alt":
      for (const item of node.items) {
        const found = findBackreference(item);
        if (found !== undefined) return found;
      }
      return undefined;
    case "repeat":
    case "look":
      return findBackreference(node.body);
    default:
      return undefined;
  }
}
