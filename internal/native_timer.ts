// A timer of V8's own, for the timers a server arms while it serves. Deno
// 2.9.6's global `setTimeout` and `clearTimeout` are Node's, loaded the first
// time either is read: 5–15 ms of `node:timers` and what it imports, paid by a
// server's first asynchronous call, whose deadline is the first timer it arms
// (docs/benchmarks.md, "A finding for later: the first asynchronous call").
// `Atomics.waitAsync` with a timeout is V8's: it costs a few µs the first
// time, never keeps the process alive, and an `Atomics.notify` ends it early.

import { timerDelay } from "./timer_delay.ts";

/** A timer {@linkcode startTimer} armed; {@linkcode NativeTimer.cancel} stops it. */
export interface NativeTimer {
  /** Stops the timer: its callback never runs. Harmless once it ran or was cancelled. */
  cancel(): void;
}

/**
 * Runs `callback` once, `ms` from now (at least 1 ms: always after the
 * current task, as a timer does), unless the timer is cancelled first. The
 * timer does not keep the process alive. A callback that throws is reported
 * as an uncaught error, as one of `setTimeout`'s is.
 *
 * A cancelled timer is not freed until its time has passed (V8 keeps its
 * timeout task queued, ~1–3 KB): arm one timer for a run of deadlines, as
 * the call table and the stderr queue do, not one per event cancelled soon after.
 *
 * @param callback What to run.
 * @param ms The wait in milliseconds (clamped as {@linkcode timerDelay} does).
 * @returns The timer, to cancel.
 *
 * @example Cancelled, it never runs; the other one runs (while something else keeps the process alive)
 * ```ts
 * import { startTimer } from "./native_timer.ts";
 * import assert from "node:assert/strict";
 *
 * const ran: string[] = [];
 * const alive = setInterval(() => {}, 1000);
 * startTimer(() => ran.push("cancelled"), 1).cancel();
 * await new Promise<void>((resolve) => startTimer(() => (ran.push("ran"), resolve()), 5));
 * clearInterval(alive);
 * assert.deepEqual(ran, ["ran"]);
 * ```
 */
export function startTimer(callback: () => void, ms: number): NativeTimer {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let live = true;
  // The cell holds 0, so the wait starts; only a timeout or the notify below ends it.
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(1, timerDelay(ms)));
  if (wait.async) {
    void wait.value.then((outcome) => {
      if (!live || outcome !== "timed-out") return;
      live = false;
      try {
        callback();
      } catch (err) {
        reportError(err);
      }
    });
  }
  return {
    cancel() {
      if (!live) return;
      live = false;
      Atomics.notify(cell, 0);
    },
  };
}
