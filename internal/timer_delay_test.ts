import assert from "node:assert/strict";
import { MAX_TIMER_MS, timerDelay } from "./timer_delay.ts";

Deno.test("timerDelay() keeps a wait setTimeout honours, cuts a longer one to 2^31-1 ms and a negative one to 0", () => {
  assert.equal(timerDelay(1500), 1500);
  assert.equal(timerDelay(-20), 0);
  assert.equal(timerDelay(3_000_000_000), MAX_TIMER_MS);
  assert.equal(MAX_TIMER_MS, 2_147_483_647);
});

Deno.test("a timer armed with timerDelay() of a 30-day wait does not fire at once", async () => {
  let fired = false;
  const timer = setTimeout(() => (fired = true), timerDelay(30 * 86_400_000));
  // A fixed wait, only to prove that something does not happen: an overflowed delay fires after 1 ms.
  await new Promise((resolve) => setTimeout(resolve, 50));
  clearTimeout(timer);
  assert.equal(fired, false);
});
