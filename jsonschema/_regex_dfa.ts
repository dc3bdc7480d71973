// The fast matcher for patterns without lookarounds: the thread sets of
// _regex_threads.ts turned into the states of a DFA as the strings met need
// them, and each move remembered per state and code point class. A string
// then costs one array read per code point once its moves are known, and a
// new move costs one closure (at most the program's size). The states are
// forgotten when they pass a budget, so memory stays bounded whatever the
// input; the work stays linear, a forgotten move is only built again.
//
// A state is the threads waiting before a position plus what the previous
// code point was (start of string, word or line character): with the class of
// the next code point, that is everything an assertion can ask.

import { AT_BEGIN, AT_END, codePointAt, type CodePointClasses } from "./_regex_classes.ts";
import type { Program } from "./_regex_program.ts";
import { type Steps, Threads } from "./_regex_threads.ts";

/** A move to this target means the pattern matched: the search ends. */
const ACCEPT = -1;
/** A move not built yet. */
const UNKNOWN = -2;
/** Thread numbers kept over all states before they are forgotten. */
const BUDGET = 1 << 18;
const NO_LOOKS: Uint8Array[] = [];

interface State {
  /** The instructions waiting, ascending. */
  readonly pcs: Int32Array;
  /** The AT_BEGIN bit, or the PREV_* bits of the code point before. */
  readonly prev: number;
  /** By class: the state after a code point of that class, ACCEPT, or undefined until first needed. */
  readonly next: number[];
  /** The same by ASCII code point, UNKNOWN until first needed: one read per character on the common path. */
  readonly ascii: Int32Array;
  /** Whether the pattern matches when the string ends here: 1, 0, or -1 until first needed. */
  end: number;
}

/** A lazily built DFA of one program with no LOOK instruction. */
export class LazyDfa {
  #states: State[] = [];
  #ids = new Map<string, number>();
  #kept = 0;
  #begin = -1;
  readonly #threads: Threads;
  readonly #list: Int32Array;

  /**
   * @param program A program without lookarounds.
   * @param classes The classes of its code points.
   * @param counter Where the steps are added.
   */
  constructor(readonly program: Program, readonly classes: CodePointClasses, readonly counter: Steps) {
    this.#threads = new Threads(program, counter);
    this.#list = new Int32Array(program.op.length);
  }

  /** Whether the program matches anywhere in `text`. */
  test(text: string): boolean {
    const classes = this.classes;
    if (this.#begin < 0) this.#begin = this.#state(new Int32Array(0), AT_BEGIN);
    let s = this.#begin;
    let states = this.#states;
    const n = text.length;
    for (let i = 0; i < n;) {
      const unit = text.charCodeAt(i);
      let t: number;
      if (unit < 128) {
        i++;
        t = states[s].ascii[unit];
        if (t === UNKNOWN) {
          t = this.#move(s, classes.of(unit), unit);
          states = this.#states;
        }
      } else {
        const cp = codePointAt(text, i);
        i += cp > 0xffff ? 2 : 1;
        const c = classes.of(cp);
        t = states[s].next[c] ?? UNKNOWN;
        if (t === UNKNOWN) {
          t = this.#move(s, c, -1);
          states = this.#states;
        }
      }
      if (t === ACCEPT) {
        this.counter.steps += i;
        return true;
      }
      s = t;
    }
    this.counter.steps += n;
    const last = states[s];
    if (last.end < 0) {
      this.#list.set(last.pcs);
      last.end = this.#threads.closure(this.#list, last.pcs.length, 0, last.prev | AT_END, NO_LOOKS, 0) < 0 ? 1 : 0;
    }
    return last.end === 1;
  }

  /** The move from state `s` on a code point of class `c` (the ASCII `unit`, or -1), built and remembered. */
  #move(s: number, c: number, unit: number): number {
    const from = this.#states[s];
    const list = this.#list;
    list.set(from.pcs);
    const bits = this.classes.bitsOf[c];
    const chars = this.#threads.closure(list, from.pcs.length, 0, from.prev | bits, NO_LOOKS, 0);
    let target = ACCEPT;
    if (chars >= 0) {
      const atoms = this.classes.atomsOf[c];
      const a = this.program.a;
      let count = 0;
      for (let t = 0; t < chars; t++) {
        const pc = list[t];
        if (atoms[a[pc]] === 1) list[count++] = pc + 1;
      }
      this.counter.steps += chars;
      const pcs = list.slice(0, count).sort();
      if (this.#kept + pcs.length > BUDGET) {
        this.#forget();
        s = this.#state(from.pcs, from.prev);
      }
      target = this.#state(pcs, bits >> 1);
    }
    const state = this.#states[s];
    state.next[c] = target;
    if (unit >= 0) state.ascii[unit] = target;
    return target;
  }

  #state(pcs: Int32Array, prev: number): number {
    const key = `${prev}:${pcs.join(",")}`;
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = this.#states.length;
      this.#states.push({ pcs, prev, next: [], ascii: new Int32Array(128).fill(UNKNOWN), end: -1 });
      this.#ids.set(key, id);
      this.#kept += pcs.length + 128;
    }
    return id;
  }

  #forget(): void {
    this.#states = [];
    this.#ids = new Map();
    this.#kept = 0;
    this.#begin = -1;
  }
}
