import assert from "node:assert/strict";
import { CallTable } from "./_calls.ts";
import { ManualClock } from "../internal/manual_clock.ts";

Deno.test("CallTable aborts each call with a TimeoutError at its own deadline, using one timer", () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const fast = table.open("a", 20);
  const slow = table.open("b", 1_000);
  assert.equal(clock.pending, 1, "one timer serves both deadlines");
  clock.advance(19);
  assert.equal(fast.signal.aborted, false);
  clock.advance(1);
  assert.equal(fast.signal.aborted, true);
  assert.equal(fast.cause, "timeout");
  assert.equal((fast.signal.reason as DOMException).name, "TimeoutError");
  assert.equal((fast.signal.reason as DOMException).message, "Tool call timed out after 20 ms");
  assert.equal(slow.signal.aborted, false);
  assert.equal(clock.pending, 1, "the timer is armed again, for the next deadline");
  clock.advance(979);
  assert.equal(slow.signal.aborted, false);
  clock.advance(1);
  assert.equal(slow.signal.aborted, true);
  table.dispose();
  assert.equal(clock.pending, 0);
});

Deno.test("CallTable never times a call out before its deadline: not at a sooner call's deadline 1 ms before it, nor at a wake-up 1 ms before it", () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const later = table.open("a", 100);
  const sooner = table.open("b", 99);
  clock.advance(99);
  assert.equal(sooner.signal.aborted, true);
  assert.equal(later.signal.aborted, false, "99 ms into a 100 ms timeout");
  clock.advance(1);
  assert.equal(later.signal.aborted, true);
  // A deadline more than a second off is reached by wake-ups a second apart: the one at 1,100 is 1 ms before it.
  const far = table.open("c", 1_001);
  clock.advance(1_000);
  assert.equal(far.signal.aborted, false, "1,000 ms into a 1,001 ms timeout");
  clock.advance(1);
  assert.equal(far.signal.aborted, true);
  assert.equal(far.cause, "timeout");
  assert.equal(clock.pending, 0, "no call left: no more wake-ups");
  table.dispose();
});

Deno.test("CallTable does not abort a call closed before its deadline", () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const call = table.open("a", 20);
  table.close(call);
  assert.equal(table.size, 0);
  clock.advance(40);
  assert.equal(call.signal.aborted, false);
  table.dispose();
});

Deno.test("a call opened with no deadline of its own arms no timer and ends by timeOut() as its deadline would", () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const call = table.open("t", 300, Infinity);
  assert.equal(clock.pending, 0);
  clock.advance(10_000);
  assert.equal(call.signal.aborted, false);
  table.timeOut("t");
  assert.equal(call.cause, "timeout");
  assert.equal((call.signal.reason as DOMException).name, "TimeoutError");
  assert.equal((call.signal.reason as DOMException).message, "Tool call timed out after 300 ms");
  table.timeOut("nothing under this key");
  table.dispose();
});

Deno.test("CallTable.abortAll() aborts every call once, keeping the first cause", () => {
  const table = new CallTable();
  const a = table.open("a", 10_000);
  const b = table.open("b", 10_000);
  table.cancel("a", new DOMException("x", "AbortError"));
  table.abortAll("shutdown", new DOMException("y", "AbortError"));
  assert.equal(a.cause, "cancelled");
  assert.equal(b.cause, "shutdown");
  assert.equal((a.signal.reason as DOMException).message, "x");
  table.dispose();
});

Deno.test('CallTable keeps 1 and "1" apart, and a closed call is no longer open to cancellation', () => {
  const table = new CallTable();
  const number = table.open(1, 10_000);
  const string = table.open("1", 10_000);
  table.cancel("1", new DOMException("x", "AbortError"));
  assert.equal(number.signal.aborted, false);
  assert.equal(string.cause, "cancelled");
  table.close(number);
  assert.equal(number.open, false);
  table.cancel(1, new DOMException("late", "AbortError"));
  assert.equal(number.signal.aborted, false);
  assert.equal(table.has(1), false);
  table.dispose();
});

Deno.test("a cancelled call frees its id at once; a call that timed out keeps it until it answers", () => {
  const table = new CallTable();
  const cancelled = table.open(1, 10_000);
  table.cancel(1, new DOMException("x", "AbortError"));
  assert.equal(cancelled.cause, "cancelled");
  assert.equal(table.has(1), false, "the id is free for the client's next request");
  const again = table.open(1, 10_000);
  table.close(cancelled);
  assert.equal(table.has(1), true, "closing the cancelled call leaves the new one under its id");
  table.close(again);
  const late = table.open("t", 10_000);
  table.timeOut("t");
  table.cancel("t", new DOMException("x", "AbortError"));
  assert.equal(late.cause, "timeout");
  assert.equal(table.has("t"), true, "its timeout reply is still to come");
  assert.equal(table.size, 1);
  table.dispose();
});

Deno.test("a race on a call rejects with the abort reason the moment the call is aborted", async () => {
  const table = new CallTable();
  const call = table.open("a", 10_000);
  const never = call.race(new Promise<never>(() => {}));
  table.cancel("a", new DOMException("stop", "AbortError"));
  await assert.rejects(never, (err: DOMException) => err.message === "stop");
  // Racing an aborted call rejects at once.
  await assert.rejects(call.race(Promise.resolve(1)), (err: DOMException) => err.message === "stop");
  table.dispose();
});

Deno.test("settledAll() waits for the promise tracked for each call in flight", async () => {
  const table = new CallTable();
  const call = table.open("a", 10_000);
  let release!: () => void;
  const settled = new Promise<void>((resolve) => (release = resolve));
  table.track(call, settled);
  let done = false;
  const all = table.settledAll().then(() => (done = true));
  await Promise.resolve();
  assert.equal(done, false);
  release();
  await all;
  assert.equal(done, true);
  table.dispose();
});

Deno.test("a created call is neither found by its key nor timed out until it enters the table", () => {
  const clock = new ManualClock();
  const table = new CallTable(clock);
  const call = table.create("a", 20);
  assert.equal(call.deadline, Infinity);
  assert.equal(table.has("a"), false);
  assert.equal(table.size, 0);
  assert.equal(clock.pending, 0, "no timer for a call that has not waited");
  table.cancel("a", new DOMException("stop", "AbortError"));
  assert.equal(call.cause, undefined, "a cancellation by key cannot reach a call that is not in the table");
  clock.advance(50);
  table.enter(call);
  assert.equal(call.deadline, 70, "the deadline runs from entering");
  assert.equal(table.has("a"), true);
  clock.advance(19);
  assert.equal(call.cause, undefined);
  clock.advance(1);
  assert.equal(call.cause, "timeout");
  assert.equal(call.signal.aborted, true);
  table.dispose();
});

Deno.test("a call aborted before its signal is read hands out a signal already aborted with that reason", () => {
  const table = new CallTable(new ManualClock());
  const call = table.create("a", 10_000);
  table.pause(call);
  assert.equal(call.cause, "input");
  const signal = call.signal;
  assert.equal(signal.aborted, true);
  assert.equal((signal.reason as DOMException).name, "InputRequiredError");
  assert.equal(call.signal, signal, "one signal per call");
  table.dispose();
});

Deno.test("CallTable frees a cancelled call's key at once but counts it, and what it holds, until the work it raced settles", async () => {
  const table = new CallTable(new ManualClock());
  const call = table.create("a", 1_000);
  table.enter(call, undefined, 500);
  const handler = Promise.withResolvers<string>();
  const raced = call.race(handler.promise);
  table.cancel("a", new DOMException("stop", "AbortError"));
  await assert.rejects(raced);
  table.close(call);
  assert.deepEqual([table.has("a"), table.size, table.running, table.heldBytes], [false, 0, 1, 500]);
  handler.resolve("late");
  await handler.promise;
  await Promise.resolve();
  await Promise.resolve();
  assert.deepEqual([table.running, table.heldBytes], [0, 0], "given back once the handler ended");
  // A call closed without an abort stops counting at once, and closing twice counts it down once.
  const plain = table.open("b", 1_000);
  table.close(plain);
  table.close(plain);
  assert.equal(table.running, 0);
  table.dispose();
});
