// setTimeout takes a signed 32-bit delay: a longer one overflows, fires after
// 1 ms and prints a TimeoutOverflowWarning on stderr. Deadlines, task TTLs and
// grace periods may be longer than that, so every timer waits at most
// MAX_TIMER_MS; the sweeps that own a deadline check it again and re-arm.

/** The longest delay setTimeout honours: 2³¹ − 1 ms, about 24.8 days. */
export const MAX_TIMER_MS: number = 2 ** 31 - 1;

/**
 * A delay setTimeout honours for a wait of `ms`: at least 0, at most
 * {@linkcode MAX_TIMER_MS}.
 *
 * @param ms The wanted wait in milliseconds.
 * @returns The delay to hand setTimeout.
 */
export function timerDelay(ms: number): number {
  return Math.min(MAX_TIMER_MS, Math.max(0, ms));
}
