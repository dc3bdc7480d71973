// Shutdown waits for work with a bound: a call or a client that never finishes
// must not hold the process.

import { timerDelay } from "./timer_delay.ts";

/** Waits for `promise` at most `ms` milliseconds (none when `ms` is not positive); never rejects. */
export async function within(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = promise.then(() => {}, () => {});
  await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, timerDelay(ms))))]);
  clearTimeout(timer);
}
