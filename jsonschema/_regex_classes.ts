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
/** Code points outside ASCII keep their class in pages of 2^PAGE_BITS, made as they are first met. */
const PAGE_BITS = 8;
const PAGE_MASK = (1 << PAGE_BITS) - 1;

/** The classes of one pattern's code points, found as they are met. */
export class CodePointClasses {
  /** Per class: 1 where the atom of that number matches. */
  readonly atomsOf: Uint8Array[] = [];
  /** Per class: its NEXT_* bits. */
  readonly bitsOf: number[] = [];
  readonly #ascii = new Int32Array(128).fill(-1);
  // Outside ASCII: per page, each code point's class + 1 (0: not met yet). Every code point is classified once for the
  // pattern's life, so a string cycling through more code points than any cache holds costs V8's tests once per
  // code point, not once per occurrence (V8's tests cost a character far more than a look in a page: a bounded map
  // cleared when full would pay them at every character); at most 4,352 pages of 512 bytes (2.2 MiB) per pattern, and
  // only the pages a client's strings reach.
  readonly #pages = new Map<number, Uint16Array>();
  #classified = 0;
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
    let page = this.#pages.get(cp >> PAGE_BITS);
    if (page === undefined) this.#pages.set(cp >> PAGE_BITS, page = new Uint16Array(PAGE_MASK + 1));
    const known = page[cp & PAGE_MASK];
    if (known !== 0) return known - 1;
    const id = this.#classify(cp);
    // Past 65,534 classes (no pattern has them) a code point is classified each time it is met.
    if (id < 0xffff) page[cp & PAGE_MASK] = id + 1;
    return id;
  }

  /** How many times a code point's atoms were tested (once per code point, ASCII included, over the pattern's life). */
  get classified(): number {
    return this.#classified;
  }

  #classify(cp: number): number {
    this.#classified++;
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
