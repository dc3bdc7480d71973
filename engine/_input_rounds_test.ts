import assert from "node:assert/strict";
import { holdProcess } from "../internal/testdata/hold_process.ts";
import { type NativeTimer, startTimer } from "../internal/native_timer.ts";
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

Deno.test("InputRounds: a question whose check fails after the round's timer fired leaves the questions asked with it sealed in a round, not waiting for good", async () => {
  using _held = holdProcess();
  let fail!: (err: Error) => void;
  const ready = new Promise((_, reject) => (fail = reject));
  const outcome = round((asker) =>
    Promise.allSettled([asker.ask("roots/list", undefined), asker.ask("elicitation/create", form("A?"), "a", ready)])
  );
  // The check fails well after the round's 1 ms timer, which found it still pending and sealed nothing.
  await new Promise<void>((resolve) => startTimer(resolve, 20));
  fail(new TypeError("Cannot elicit: refused"));
  let bound: NativeTimer | undefined;
  const paused = await Promise.race([
    outcome,
    new Promise<"never sealed">((resolve) => (bound = startTimer(() => resolve("never sealed"), 2000))),
  ]);
  bound?.cancel();
  assert.ok(typeof paused === "object" && "paused" in paused, JSON.stringify(paused));
  assert.deepEqual(Object.keys(paused.paused.inputRequests), ["roots-1"]);
});

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
