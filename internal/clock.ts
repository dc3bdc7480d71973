// What a table with deadlines reads the time from and arms its timer on. The
// engine's call and task tables take one, so that their tests move time
// forward (internal/manual_clock.ts) instead of waiting for it to pass.

import { timerDelay } from "./timer_delay.ts";

/** A monotonic time source and the one kind of timer the tables use. */
export interface Clock {
  /** Milliseconds on a monotonic scale; only differences between readings mean anything. */
  now(): number;
  /** Runs `callback` once, `ms` from now; the timer never keeps the process alive. */
  setTimer(callback: () => void, ms: number): unknown;
  /** Stops a timer that setTimer() returned and that has not fired; any other value is ignored. */
  clearTimer(timer: unknown): void;
}

/** The process's clock: `performance.now()` and unref'd `setTimeout` timers of any length. */
export const systemClock: Clock = {
  now: () => performance.now(),
  setTimer(callback, ms) {
    const timer = setTimeout(callback, timerDelay(ms));
    Deno.unrefTimer(timer);
    return timer;
  },
  clearTimer: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};
