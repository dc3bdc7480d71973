import assert from "node:assert/strict";
import { systemClock } from "./clock.ts";
import { MAX_TIMER_MS } from "./timer_delay.ts";

/** Waits for `fired`, holding the event loop open meanwhile: systemClock's own timers are unref'd and would not. */
async function awaitAlive(fired: Promise<void>): Promise<void> {
  const hold = setTimeout(() => {}, 60_000);
  try {
    await fired;
  } finally {
    clearTimeout(hold);
  }
}

Deno.test("systemClock.now() never goes backwards", () => {
  let last = systemClock.now();
  for (let i = 0; i < 1000; i++) {
    const now = systemClock.now();
    assert.ok(now >= last, `${now} after ${last}`);
    last = now;
  }
});

Deno.test("systemClock.setTimer() runs its callback once, and clearTimer() stops one that has not fired", async () => {
  const fired: string[] = [];
  const cleared = systemClock.setTimer(() => fired.push("cleared"), 0);
  systemClock.clearTimer(cleared);
  // Due at the same time and set later, this one fires after the cleared one would have.
  await awaitAlive(new Promise((resolve) => systemClock.setTimer(() => resolve(void fired.push("kept")), 0)));
  assert.deepEqual(fired, ["kept"]);
});

Deno.test("systemClock.setTimer() takes a delay past setTimeout's 32-bit range without firing at once", async () => {
  const fired: string[] = [];
  const far = systemClock.setTimer(() => fired.push("far"), 10 * MAX_TIMER_MS);
  systemClock.setTimer(() => fired.push("negative"), -5);
  await awaitAlive(new Promise((resolve) => systemClock.setTimer(resolve, 1)));
  systemClock.clearTimer(far);
  assert.deepEqual(fired, ["negative"], "an overflowed delay would have fired after 1 ms");
});

Deno.test("systemClock.clearTimer() ignores what setTimer() did not return", () => {
  systemClock.clearTimer(undefined);
  systemClock.clearTimer("not a timer");
  systemClock.clearTimer({});
});
