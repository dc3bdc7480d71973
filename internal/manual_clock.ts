// A clock that moves only when a test says so: a deadline or a TTL is reached
// by advance(), at once and in order, so no test waits for real time to pass
// and no verdict depends on how busy the machine is.

import type { Clock } from "./clock.ts";

interface Pending {
  at: number;
  callback: () => void;
}

/** A {@linkcode Clock} whose time stands still until {@linkcode ManualClock.advance} moves it. */
export class ManualClock implements Clock {
  #now: number;
  #lastId = 0;
  readonly #timers = new Map<number, Pending>();
  // The due times of the timers cleared before them (V8 holds a cancelled timer of its own until then).
  #cleared: number[] = [];

  /** Starts at `start` ms. */
  constructor(start = 0) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, ms: number): number {
    const id = ++this.#lastId;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), callback });
    return id;
  }

  clearTimer(timer: unknown): void {
    if (typeof timer !== "number") return;
    const pending = this.#timers.get(timer);
    if (pending === undefined) return;
    this.#timers.delete(timer);
    if (pending.at > this.#now) this.#cleared.push(pending.at);
  }

  /** How many timers wait to fire. */
  get pending(): number {
    return this.#timers.size;
  }

  /**
   * How many timers V8 would hold (./native_timer.ts): those waiting to fire,
   * and those cleared whose due time has not come yet.
   */
  get held(): number {
    this.#cleared = this.#cleared.filter((at) => at > this.#now);
    return this.#timers.size + this.#cleared.length;
  }

  /**
   * Moves time forward by `ms`, running every timer that falls due on the
   * way, earliest first (in the order they were set when due together), each
   * with the clock reading its own due time; a timer set by a callback runs
   * too if it falls due within the step.
   */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      let first: [number, Pending] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= until && (first === undefined || entry[1].at < first[1].at)) first = entry;
      }
      if (first === undefined) break;
      this.#timers.delete(first[0]);
      this.#now = Math.max(this.#now, first[1].at);
      first[1].callback();
    }
    this.#now = until;
  }
}
