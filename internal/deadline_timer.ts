// One timer for a table of deadlines: armed for the soonest, it sweeps the
// table when it fires and is armed again for whatever the sweep says is next.
// A timer per entry would cost most of a fast call (docs/benchmarks.md,
// "Figures behind the code"), and each cancelled V8 timer is held until its
// time has passed (./native_timer.ts). The call table, the task table and the
// stderr queue's records use it; what is due, and what becomes of it, is
// each table's own sweep.
//
// Since a cancelled V8 timer is held until its time, a timer is never armed
// more than HORIZON_MS ahead (a far deadline is reached by a wake-up each
// HORIZON_MS that sweeps and arms again), and a timer is cancelled for a
// sooner deadline only while fewer than MAX_HELD timers it started are still
// before their times: deadlines that come ever sooner (a client alternating
// tools of different timeouts) hold at most MAX_HELD timers, and a deadline
// the cap kept from its own timer is enforced at most HORIZON_MS late.

import type { Clock } from "./clock.ts";

/** The farthest ahead a timer is armed: a cancelled one is held at most this long. */
const HORIZON_MS = 1_000;
/** How many timers started and not yet at their times (the live one and those cancelled) allow another cancel. */
const MAX_HELD = 8;
/** The first wait before a sweep that threw is run again; it doubles while sweeps throw, up to HORIZON_MS. */
const RETRY_MS = 10;

/**
 * A sweep of a table at `now` (a reading of the timer's clock): it deals with
 * what is due and returns the next deadline left, or `Infinity` for none.
 */
export type Sweep = (now: number) => number;

/**
 * The one timer of a table of deadlines, on a {@linkcode Clock}: armed for the
 * soonest deadline it was given, it runs the table's sweep when it fires, then
 * arms itself for the deadline the sweep returns. A deadline further than a
 * second ahead is reached by wake-ups a second apart. A sweep that throws is
 * run again after a short wait (10 ms, doubling while it keeps throwing, up
 * to a second), and its error is thrown on: a deadline is never dropped.
 *
 * @example Two deadlines, one sweep each, on a clock a test moves
 * ```ts
 * import { DeadlineTimer } from "./deadline_timer.ts";
 * import { ManualClock } from "./manual_clock.ts";
 * import assert from "node:assert/strict";
 *
 * const clock = new ManualClock();
 * const deadlines = [10, 30];
 * const swept: number[] = [];
 * const timer = new DeadlineTimer(clock, (now) => {
 *   swept.push(now);
 *   while (deadlines.length > 0 && deadlines[0] <= now) deadlines.shift();
 *   return deadlines[0] ?? Infinity;
 * });
 * timer.arm(30);
 * timer.arm(10);
 * clock.advance(40);
 * assert.deepEqual(swept, [10, 30]);
 * ```
 */
export class DeadlineTimer {
  readonly #clock: Clock;
  readonly #sweep: Sweep;
  #handle: unknown = undefined;
  #armedFor = Infinity;
  // When the live timer fires, and when every timer started and not yet past its time does (a cancelled one too).
  #firesAt = Infinity;
  #held: number[] = [];
  #failures = 0;

  /** A timer, not armed yet, that runs `sweep` on `clock` when it fires. */
  constructor(clock: Clock, sweep: Sweep) {
    this.#clock = clock;
    this.#sweep = sweep;
  }

  /** The soonest deadline it was given (a clock reading); `Infinity` while it is not armed. */
  get armedFor(): number {
    return this.#armedFor;
  }

  /** Arms the timer for `at`, only if that is sooner than what it is armed for (a later or NaN time is ignored). */
  arm(at: number): void {
    if (!(at < this.#armedFor)) return;
    this.#armedFor = at;
    const now = this.#clock.now();
    const target = Math.min(at, now + HORIZON_MS);
    if (target >= this.#firesAt) return;
    this.#held = this.#held.filter((time) => time > now);
    if (this.#handle !== undefined) {
      // The live timer fires within HORIZON_MS: it sweeps then, rather than another timer held till its time.
      if (this.#held.length >= MAX_HELD) return;
      this.#clock.clearTimer(this.#handle);
    }
    this.#firesAt = target;
    this.#held.push(target);
    this.#handle = this.#clock.setTimer(() => this.#fire(target), target - now);
  }

  /**
   * Sweeps now, without waiting for the timer (which stays armed), and arms
   * it for the deadline the sweep returns if that is sooner.
   */
  sweepNow(): void {
    this.arm(this.#sweep(this.#clock.now()));
  }

  /** Disarms the timer: no sweep runs until it is armed again. */
  stop(): void {
    if (this.#handle !== undefined) this.#clock.clearTimer(this.#handle);
    this.#handle = undefined;
    this.#firesAt = Infinity;
    this.#armedFor = Infinity;
  }

  #fire(target: number): void {
    // Already gone if an arm() between its time and its callback dropped the times that had passed.
    const at = this.#held.indexOf(target);
    if (at !== -1) this.#held.splice(at, 1);
    this.#handle = undefined;
    this.#firesAt = Infinity;
    this.#armedFor = Infinity;
    const now = this.#clock.now();
    let next: number;
    try {
      next = this.#sweep(now);
    } catch (err) {
      // The table's bug: what the sweep left undone is unknown, so it runs again soon, and the error is reported.
      this.arm(now + Math.min(HORIZON_MS, RETRY_MS * 2 ** this.#failures++));
      throw err;
    }
    this.#failures = 0;
    // A deadline armed during the sweep stays armed if it is the sooner.
    this.arm(next);
  }
}
