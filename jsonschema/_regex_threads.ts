// The one step both matchers share: following a set of threads through every
// instruction that consumes nothing (splits, jumps, assertions, lookarounds)
// at one position, each instruction at most once. What is left are the
// threads waiting for a code point, and whether any reached the end.

import { holds } from "./_regex_classes.ts";
import { ASSERT, CHAR, JMP, LOOK, MATCH, type Program, SPLIT } from "./_regex_program.ts";

/** The counter a matcher adds its steps to, read by the tests that bound them. */
export interface Steps {
  steps: number;
}

/** The scratch space of closures over one program. */
export class Threads {
  readonly #marks: Int32Array;
  readonly #stack: Int32Array;
  #gen = 0;

  /**
   * @param program The program whose threads are followed.
   * @param counter Where each instruction visited is counted.
   */
  constructor(readonly program: Program, readonly counter: Steps) {
    this.#marks = new Int32Array(program.op.length);
    // The live threads, the entry, then at most two pushes per instruction visited: the stack never holds more.
    this.#stack = new Int32Array(3 * program.op.length + 2);
  }

  /**
   * Follows the threads in `list[0..count)` and a new one at `entry` at a
   * position whose context is `ctx` (see holds()), reading lookaround `k` as
   * `looks[k][i]`. The CHAR instructions reached are written back into
   * `list`; returns how many, or -(that + 1) when a MATCH was reached.
   */
  closure(
    list: Int32Array,
    count: number,
    entry: number,
    ctx: number,
    looks: readonly Uint8Array[],
    i: number,
  ): number {
    const { op, a, b } = this.program;
    const marks = this.#marks;
    const stack = this.#stack;
    const gen = ++this.#gen;
    let top = 0;
    for (let t = 0; t < count; t++) stack[top++] = list[t];
    stack[top++] = entry;
    let chars = 0;
    let matched = false;
    let visited = 0;
    while (top > 0) {
      const pc = stack[--top];
      if (marks[pc] === gen) continue;
      marks[pc] = gen;
      visited++;
      switch (op[pc]) {
        case CHAR:
          list[chars++] = pc;
          break;
        case SPLIT:
          stack[top++] = a[pc];
          stack[top++] = b[pc];
          break;
        case JMP:
          stack[top++] = a[pc];
          break;
        case ASSERT:
          if (holds(a[pc], ctx)) stack[top++] = pc + 1;
          break;
        case LOOK:
          if (looks[a[pc]][i] !== b[pc]) stack[top++] = pc + 1;
          break;
        case MATCH:
          matched = true;
          break;
      }
    }
    this.counter.steps += visited;
    return matched ? -chars - 1 : chars;
  }
}
