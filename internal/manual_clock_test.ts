import assert from "node:assert/strict";
import { ManualClock } from "./manual_clock.ts";

Deno.test("ManualClock runs no timer until advance() reaches its due time, then each once, earliest first", () => {
  const clock = new ManualClock(1_000);
  const fired: string[] = [];
  clock.setTimer(() => fired.push(`b@${clock.now()}`), 50);
  clock.setTimer(() => fired.push(`a@${clock.now()}`), 20);
  clock.setTimer(() => fired.push(`a2@${clock.now()}`), 20);
  assert.equal(clock.now(), 1_000);
  clock.advance(19);
  assert.deepEqual(fired, []);
  clock.advance(1);
  assert.deepEqual(fired, ["a@1020", "a2@1020"]);
  clock.advance(100);
  assert.deepEqual(fired, ["a@1020", "a2@1020", "b@1050"]);
  assert.equal(clock.now(), 1_120);
  assert.equal(clock.pending, 0);
});

Deno.test("ManualClock: a cleared timer never runs; one set by a callback runs within the same step", () => {
  const clock = new ManualClock();
  const fired: number[] = [];
  const cleared = clock.setTimer(() => fired.push(-1), 10);
  clock.clearTimer(cleared);
  clock.setTimer(() => clock.setTimer(() => fired.push(clock.now()), 5), 10);
  clock.setTimer(() => fired.push(-2), -5);
  clock.advance(14);
  assert.deepEqual(fired, [-2]);
  clock.advance(1);
  assert.deepEqual(fired, [-2, 15]);
  clock.clearTimer(999);
});

Deno.test("ManualClock.held counts the timers waiting and those cleared before their due time, until it comes", () => {
  const clock = new ManualClock();
  const late = clock.setTimer(() => {}, 100);
  clock.setTimer(() => {}, 10);
  assert.equal(clock.held, 2);
  clock.clearTimer(late);
  assert.equal(clock.pending, 1);
  assert.equal(clock.held, 2, "cleared, yet held as V8 holds it until its time");
  clock.advance(10);
  assert.equal(clock.held, 1);
  clock.advance(90);
  assert.equal(clock.held, 0);
});
