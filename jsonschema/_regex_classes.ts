// Which atoms a code point matches, decided by V8 itself: each atom that is
// not a plain literal is compiled once as `^(?:atom)$` with the `u` flag
// (and `i` or `s` where a modifier group set them) and tested on the one code
// point, which is linear by construction and has ECMA-262's exact meaning.
// Code points that match the same atoms, and are alike for the assertions
// the pattern uses (a word character? a line terminator?), form one class;
// the matchers step by class, and the DFA caches its moves per class.

import type { Atom } from "./_regex_syntax.ts";

/** The position is the string's start. */
export const AT_BEGIN = 1;
/** The position is the string's end. */
export const AT_END = 2;
/** The next code point is a word character (`\w`). */
export const NEXT_WORD = 8;
/** The next code point is a word character under case folding (`\w` with `i`: also U+017F, U+212A). */
export const NEXT_WORD_I = 32;
/** The next code point is a line terminator. */
export const NEXT_LINE = 128;
/** The previous code point's bits are the next one's, shifted right once. */
export const PREV_WORD = NEXT_WORD >> 1;
/** See NEXT_WORD_I. */
export const PREV_WORD_I = NEXT_WORD_I >> 1;
/** See NEXT_LINE. */
export const PREV_LINE = NEXT_LINE >> 1;

/**
 * Whether assertion `id` (numbered as ASSERTIONS in _regex_program.ts) holds
 * at a position whose context is `ctx`: AT_* bits, the previous code point's
 * PREV_* bits and the next one's NEXT_* bits. A missing neighbour has none,
 * so `\b` holds at either end of a word.
 */
export function holds(id: number, ctx: number): boolean {
  switch (id) {
    case 0:
      return (ctx & AT_BEGIN) !== 0;
    case 1:
      return (ctx & AT_END) !== 0;
    case 2:
      return (ctx & (AT_BEGIN | PREV_LINE)) !== 0;
    case 3:
      return (ctx & (AT_END | NEXT_LINE)) !== 0;
    case 4:
      return ((ctx & PREV_WORD) !== 0) !== ((ctx & NEXT_WORD) !== 0);
    case 5:
      return ((ctx & PREV_WORD) !== 0) === ((ctx & NEXT_WORD) !== 0);
    case 6:
      return ((ctx & PREV_WORD_I) !== 0) !== ((ctx & NEXT_WORD_I) !== 0);
    default:
      return ((ctx & PREV_WORD_I) !== 0) === ((ctx & NEXT_WORD_I) !== 0);
  }
}

/** What the class of a code point must tell apart besides its atoms. */
export interface ClassNeeds {
  readonly word: boolean;
  readonly wordIgnoreCase: boolean;
  readonly lines: boolean;
}

const WORD = /^\w$/u;
const WORD_I = /^\w$/ui;
/** How many code points outside ASCII keep their class; the map starts over past it. */
const REMEMBERED = 4096;

/** The classes of one pattern's code points, found as they are met. */
export class CodePointClasses {
  /** Per class: 1 where the atom of that number matches. */
  readonly atomsOf: Uint8Array[] = [];
  /** Per class: its NEXT_* bits. */
  readonly bitsOf: number[] = [];
  readonly #ascii = new Int32Array(128).fill(-1);
  readonly #other = new Map<number, number>();
  readonly #bySignature = new Map<string, number>();
  readonly #tests: ((cp: number, text: string) => boolean)[];

  /**
   * @param atoms The program's atoms.
   * @param needs The assertions' needs.
   */
  constructor(atoms: readonly Atom[], readonly needs: ClassNeeds) {
    this.#tests = atoms.map(atomTest);
  }

  /** The class of code point `cp`. */
  of(cp: number): number {
    if (cp < 128) {
      const known = this.#ascii[cp];
      return known >= 0 ? known : (this.#ascii[cp] = this.#classify(cp));
    }
    const known = this.#other.get(cp);
    if (known !== undefined) return known;
    if (this.#other.size >= REMEMBERED) this.#other.clear();
    const id = this.#classify(cp);
    this.#other.set(cp, id);
    return id;
  }

  #classify(cp: number): number {
    const text = String.fromCodePoint(cp);
    const atoms = new Uint8Array(this.#tests.length);
    for (let i = 0; i < atoms.length; i++) atoms[i] = this.#tests[i](cp, text) ? 1 : 0;
    let bits = 0;
    if (this.needs.word && WORD.test(text)) bits |= NEXT_WORD;
    if (this.needs.wordIgnoreCase && WORD_I.test(text)) bits |= NEXT_WORD_I;
    if (this.needs.lines && (cp === 0x0a || cp === 0x0d || cp === 0x2028 || cp === 0x2029)) bits |= NEXT_LINE;
    const signature = `${bits}:${atoms.join("")}`;
    let id = this.#bySignature.get(signature);
    if (id === undefined) {
      id = this.atomsOf.length;
      this.atomsOf.push(atoms);
      this.bitsOf.push(bits);
      this.#bySignature.set(signature, id);
    }
    return id;
  }
}

function atomTest(atom: Atom): (cp: number, text: string) => boolean {
  const literal = atom.literal;
  if (literal !== undefined) return (cp) => cp === literal;
  let re: RegExp | undefined;
  return (_, text) => (re ??= new RegExp(`^(?:${atom.source})$`, atom.flags)).test(text);
}

/** The code point of `text` that starts at `i` (a lone surrogate is one). */
export function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return c;
}

/** The code point of `text` that ends at `i` (a lone surrogate is one). */
export function codePointBefore(text: string, i: number): number {
  const d = text.charCodeAt(i - 1);
  if (d >= 0xdc00 && d <= 0xdfff && i >= 2) {
    const c = text.charCodeAt(i - 2);
    if (c >= 0xd800 && c <= 0xdbff) return (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
  }
  return d;
}
