// The general matcher: a program run as a set of threads (a Pike VM without
// captures), for patterns with lookarounds. Every lookaround's body is run
// once over the whole string first, into a table of the positions where it
// holds: a lookbehind's body forward, a lookahead's (compiled reversed)
// backward from the end, each starting a thread at every position. Nested
// lookarounds have later numbers, so running the tables from the last to the
// first finds every table a body reads already filled. Each program visits
// each of its instructions at most twice per position, so a test costs at
// most 2 × program size × (code points + 1) steps. The per-position tables
// cost some ten bytes a code point; they are kept for the next test only up
// to KEPT_POSITIONS, so a compiled pattern never holds on to the size of the
// longest string a client once sent.

import { AT_BEGIN, AT_END, codePointAt, type CodePointClasses } from "./_regex_classes.ts";
import type { Program } from "./_regex_program.ts";
import { type Steps, Threads } from "./_regex_threads.ts";

/** The most positions whose tables outlive a test: beyond, they are made for it and dropped after. */
export const KEPT_POSITIONS = 65_536;

/** The Pike VM of one program, its scratch space kept from one test to the next (up to KEPT_POSITIONS). */
export class PikeVm {
  readonly #threads: Threads;
  #current: Int32Array;
  #next: Int32Array;
  #cls = new Int32Array(0);
  #ctx = new Int32Array(0);
  #n = 0;
  #tables: Uint8Array[] = [];

  /**
   * @param program The compiled pattern.
   * @param classes The classes of its code points.
   * @param counter Where the steps are added.
   */
  constructor(readonly program: Program, readonly classes: CodePointClasses, readonly counter: Steps) {
    this.#threads = new Threads(program, counter);
    this.#current = new Int32Array(program.op.length);
    this.#next = new Int32Array(program.op.length);
  }

  /** The positions whose tables are kept for the next test (the bytes held are about ten times this). */
  get keptPositions(): number {
    return this.#ctx.length;
  }

  /** Whether the program matches anywhere in `text`. */
  test(text: string): boolean {
    try {
      return this.#test(text);
    } finally {
      if (this.#ctx.length > KEPT_POSITIONS) {
        this.#cls = new Int32Array(0);
        this.#ctx = new Int32Array(0);
        this.#tables = [];
      }
    }
  }

  #test(text: string): boolean {
    const { classes, program } = this;
    if (this.#ctx.length <= text.length) {
      this.#cls = new Int32Array(text.length);
      this.#ctx = new Int32Array(text.length + 1);
      this.#tables = [];
    }
    const cls = this.#cls;
    let n = 0;
    for (let i = 0; i < text.length;) {
      const cp = codePointAt(text, i);
      cls[n++] = classes.of(cp);
      i += cp > 0xffff ? 2 : 1;
    }
    this.#n = n;
    this.counter.steps += n;
    const ctx = this.#ctx;
    for (let i = 0; i <= n; i++) {
      ctx[i] = (i === 0 ? AT_BEGIN : classes.bitsOf[cls[i - 1]] >> 1) | (i === n ? AT_END : classes.bitsOf[cls[i]]);
    }
    for (let k = program.starts.length - 1; k >= 1; k--) {
      const table = this.#tables[k - 1] ??= new Uint8Array(this.#ctx.length);
      table.fill(0, 0, n + 1);
      this.#run(program.starts[k], !program.behind[k - 1], table);
    }
    return this.#run(program.starts[0], false, undefined);
  }

  /**
   * Runs the body that starts at `entry` over every position, backward or
   * forward, a new thread starting at each. With a table, marks each position
   * where the body's end was reached; without, stops at the first.
   */
  #run(entry: number, backward: boolean, table: Uint8Array | undefined): boolean {
    const a = this.program.a;
    const n = this.#n;
    const cls = this.#cls;
    let current = this.#current;
    let next = this.#next;
    let count = 0;
    for (let step = 0; step <= n; step++) {
      const i = backward ? n - step : step;
      const chars = this.#threads.closure(current, count, entry, this.#ctx[i], this.#tables, i);
      if (chars < 0) {
        if (table === undefined) return true;
        table[i] = 1;
      }
      if (step === n) break;
      const atoms = this.classes.atomsOf[cls[backward ? i - 1 : i]];
      const live = chars < 0 ? -chars - 1 : chars;
      count = 0;
      for (let t = 0; t < live; t++) {
        const pc = current[t];
        if (atoms[a[pc]] === 1) next[count++] = pc + 1;
      }
      this.counter.steps += live;
      const swap = current;
      current = next;
      next = swap;
    }
    return false;
  }
}
