import assert from "node:assert/strict";
import { digestOf, MAX_STATE_CHARS, openState, sealState, STATE_TTL_MS } from "./_request_state.ts";

const body = { round: 1, asked: { "elicitation-1": "q" }, answers: {} };

Deno.test("openState() opens what sealState() sealed for the same tool and arguments", async () => {
  const args = await digestOf({ b: 1, a: [1, { d: 2, c: 3 }] });
  assert.equal(args, await digestOf({ a: [1, { c: 3, d: 2 }], b: 1 }), "key order does not matter");
  const state = await sealState("greet", args, body);
  assert.deepEqual(await openState(state, "greet", args), { ok: true, body });
});

Deno.test("openState() refuses another tool, other arguments, an expired state and any edited byte", async () => {
  const args = await digestOf({ path: "a" });
  const state = await sealState("greet", args, body);
  assert.deepEqual(await openState(state, "delete", args), { ok: false, problem: "other-call" });
  assert.deepEqual(await openState(state, "greet", await digestOf({ path: "b" })), {
    ok: false,
    problem: "other-call",
  });
  const late = Date.now() + STATE_TTL_MS + 1_000;
  assert.deepEqual(await openState(state, "greet", args, late), { ok: false, problem: "expired" });
  for (let i = 0; i < state.length; i += 7) {
    if (state[i] === ".") continue;
    const edited = state.slice(0, i) + (state[i] === "A" ? "B" : "A") + state.slice(i + 1);
    const opened = await openState(edited, "greet", args);
    assert.equal(opened.ok, false, `byte ${i} edited`);
  }
  for (const junk of [42, "", ".", "abc", "a.b", "a b.c", `${"x".repeat(MAX_STATE_CHARS)}.x`]) {
    assert.equal((await openState(junk, "greet", args)).ok, false, String(junk).slice(0, 20));
  }
});

Deno.test("sealState() refuses to produce a state over the size a client is asked to carry", async () => {
  const big = { round: 1, asked: {}, answers: { k: { q: "q", a: "x".repeat(MAX_STATE_CHARS) } } };
  await assert.rejects(sealState("t", "d", big), RangeError);
});
