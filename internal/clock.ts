// What a table with deadlines reads the time from and arms its timer on. The
// engine's call and task tables take one, so that their tests move time
// forward (internal/manual_clock.ts) instead of waiting for it to pass.

import { type NativeTimer, startTimer } from "./native_timer.ts";

/** A monotonic time source and the one kind of timer the tables use. */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences between readings mean anything. */
  now(): number;
  /** Runs `callback` once, `ms` from now; the timer never keeps the process alive. */
  setTimer(callback: () => void, ms: number): unknown;
  /** Stops a timer that setTimer() returned and that has not fired; any other value is ignored. */
  clearTimer(timer: unknown): void;
}

/**
 * The process's clock: `performance.now()` and V8's timers (./native_timer.ts), which never keep the process alive
 * and, unlike the global `setTimeout`, cost a server's first asynchronous call no load of `node:timers`.
 */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer: (callback, ms) => startTimer(callback, ms),
  clearTimer(timer) {
    if (timer instanceof Object && typeof (timer as NativeTimer).cancel === "function") (timer as NativeTimer).cancel();
  },
};
