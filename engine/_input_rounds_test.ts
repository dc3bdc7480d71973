import assert from "node:assert/strict";
import { holdProcess } from "../internal/testdata/hold_process.ts";
import { startTimer } from "../internal/native_timer.ts";
import { ManualClock } from "../internal/manual_clock.ts";
import { type InputRequired, InputRounds, MAX_QUESTIONS_PER_ROUND } from "./_input_rounds.ts";
import { digestOf, openState, type StateBody } from "./_request_state.ts";

const ARGS = { path: "a" };

/** One round: runs `handler` against an InputRounds and says whether it finished or paused (and what it asked). */
async function round(
  handler: (asker: InputRounds) => Promise<unknown>,
  state?: string,
  responses?: Record<string, unknown>,
): Promise<{ done: unknown } | { paused: InputRequired }> {
  const argsDigest = await digestOf(ARGS);
  let body: StateBody | undefined;
  if (state !== undefined) {
    const opened = await openState(state, "t", () => Promise.resolve(argsDigest));
    assert.ok(opened.ok);
    body = opened.body;
  }
  return await new Promise((resolve, reject) => {
    const asker = new InputRounds({
      tool: "t",
      argsDigest: () => Promise.resolve(argsDigest),
      capabilities: { elicitation: {}, roots: {} },
      state: body,
      responses,
      pause: (paused) => resolve({ paused }),
    });
    handler(asker).then((done) => resolve({ done }), reject);
  });
}

const form = (message: string) => ({ mode: "form", message, requestedSchema: { type: "object", properties: {} } });

Deno.test("InputRounds: questions asked together pause once, keyed by their place; answers carry over in the state", async () => {
  using _held = holdProcess();
  const handler = async (asker: InputRounds) => {
    const [a, b] = await Promise.all([asker.ask("elicitation/create", form("A?")), asker.ask("roots/list", undefined)]);
    const c = await asker.ask("elicitation/create", form("C?"));
    return [a, b, c];
  };
  const first = await round(handler);
  assert.ok("paused" in first);
  assert.deepEqual(Object.keys(first.paused.inputRequests), ["elicitation-1", "roots-2"]);
  assert.deepEqual(first.paused.inputRequests["roots-2"], { method: "roots/list" });
  const second = await round(handler, first.paused.requestState, { "elicitation-1": "a", "roots-2": "b" });
  assert.ok("paused" in second);
  assert.deepEqual(Object.keys(second.paused.inputRequests), ["elicitation-3"]);
  // Only the new answer is sent: the earlier ones come from the sealed state.
  const third = await round(handler, second.paused.requestState, { "elicitation-3": "c" });
  assert.deepEqual(third, { done: ["a", "b", "c"] });
});

Deno.test("InputRounds: a question whose check fails after the round's timer fired arms the timer again, and the questions asked with it are sealed in a round, not left waiting for good", async () => {
  using _held = holdProcess();
  const clock = new ManualClock();
  const argsDigest = await digestOf(ARGS);
  let paused: InputRequired | undefined;
  const asker = new InputRounds({
    tool: "t",
    argsDigest: () => Promise.resolve(argsDigest),
    capabilities: { elicitation: {}, roots: {} },
    state: undefined,
    responses: undefined,
    pause: (input) => (paused = input),
    clock,
  });
  let fail!: (err: Error) => void;
  const ready = new Promise((_, reject) => (fail = reject));
  void asker.ask("roots/list", undefined);
  const refused = asker.ask("elicitation/create", form("A?"), "a", ready).catch((err: Error) => err);
  // The roots question is open once the round's timer is armed; it fires while the form's check still holds the round.
  await until(() => clock.pending === 1);
  clock.advance(1);
  assert.equal(clock.pending, 0);
  assert.equal(paused, undefined, "nothing sealed while a check is pending");
  fail(new TypeError("Cannot elicit: refused"));
  assert.equal((await refused as Error).message, "Cannot elicit: refused");
  assert.equal(clock.pending, 1, "the failed check arms the round's timer again");
  clock.advance(1);
  await until(() => paused !== undefined);
  assert.deepEqual(Object.keys(paused!.inputRequests), ["roots-1"]);
});

/** Waits, a V8 timer tick at a time (at most ~2 s), until `done()` holds: the step it waits for is another task's. */
async function until(done: () => boolean): Promise<void> {
  for (let tick = 0; !done(); tick++) {
    if (tick === 2_000) throw new Error("the awaited step never happened");
    await new Promise<void>((resolve) => startTimer(resolve, 1));
  }
}

Deno.test("InputRounds: a question that changed at its place is asked again, not answered with the old answer", async () => {
  using _held = holdProcess();
  let message = "Delete a?";
  const handler = (asker: InputRounds) => asker.ask("elicitation/create", form(message));
  const first = await round(handler);
  assert.ok("paused" in first);
  message = "Delete b?";
  const again = await round(handler, first.paused.requestState, { "elicitation-1": "yes" });
  assert.ok("paused" in again, "the answer to another question is not used");
  assert.equal((again.paused.inputRequests["elicitation-1"].params as { message: string }).message, "Delete b?");
});

Deno.test("InputRounds: an answer to a key never asked is ignored; a missing capability throws before anything is asked", async () => {
  using _held = holdProcess();
  const handler = (asker: InputRounds) => asker.ask("elicitation/create", form("A?"));
  const first = await round(handler, undefined, { "elicitation-1": "unasked" });
  assert.ok("paused" in first, "inputResponses without a state answer nothing");
  await assert.rejects(round((asker) => asker.ask("sampling/createMessage", {})), (err: Error) => {
    assert.equal(err.name, "MissingCapabilityError");
    return true;
  });
});

Deno.test(`InputRounds: more than ${MAX_QUESTIONS_PER_ROUND} questions in one round are refused`, async () => {
  const handler = (asker: InputRounds) =>
    Promise.all(
      Array.from({ length: MAX_QUESTIONS_PER_ROUND + 1 }, (_, i) => asker.ask("elicitation/create", form(`${i}`))),
    );
  await assert.rejects(round(handler), RangeError);
});

Deno.test("InputRounds: a round is sealed without reading the global setTimeout (Deno 2.9.6 loads node:timers for it)", async () => {
  using _held = holdProcess();
  const slot = Object.getOwnPropertyDescriptor(globalThis, "setTimeout")!;
  let read = false;
  Object.defineProperty(globalThis, "setTimeout", {
    configurable: true,
    enumerable: slot.enumerable,
    get() {
      read = true;
      return slot.get ? slot.get.call(globalThis) : slot.value;
    },
  });
  try {
    const paused = await round((asker) => asker.ask("elicitation/create", form("A?")));
    assert.ok("paused" in paused);
  } finally {
    Object.defineProperty(globalThis, "setTimeout", slot);
  }
  assert.equal(read, false);
});
