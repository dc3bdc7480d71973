import assert from "node:assert/strict";
import { digestOf, MAX_STATE_CHARS, openState, sealState, spendState, STATE_TTL_MS } from "./_request_state.ts";

const body = { round: 1, asked: { "elicitation-1": "q" }, answers: {} };

/** The base64url alphabet, each character at its value. */
const B64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

Deno.test("openState() opens what sealState() sealed for the same tool and arguments", async () => {
  const args = await digestOf({ b: 1, a: [1, { d: 2, c: 3 }] });
  assert.equal(args, await digestOf({ a: [1, { c: 3, d: 2 }], b: 1 }), "key order does not matter");
  const state = await sealState("greet", args, body);
  const opened = await openState(state, "greet", () => Promise.resolve(args));
  assert.ok(opened.ok);
  const { issued, ...rest } = opened.body;
  assert.deepEqual(rest, body);
  assert.match(issued!.nonce, /^[A-Za-z0-9_-]{22}$/);
});

Deno.test("openState() refuses another tool, other arguments, an expired state and any edited byte", async () => {
  const digest = await digestOf({ path: "a" });
  const args = () => Promise.resolve(digest);
  const state = await sealState("greet", digest, body);
  assert.deepEqual(await openState(state, "delete", args), { ok: false, problem: "other-call" });
  assert.deepEqual(await openState(state, "greet", () => digestOf({ path: "b" })), {
    ok: false,
    problem: "other-call",
  });
  const late = Date.now() + STATE_TTL_MS + 1_000;
  assert.deepEqual(await openState(state, "greet", args, late), { ok: false, problem: "expired" });
  for (let i = 0; i < state.length; i += 7) {
    if (state[i] === ".") continue;
    // The character's top bit flipped: a segment's last character may carry low bits that are only padding.
    const edited = state.slice(0, i) + B64URL[B64URL.indexOf(state[i]) ^ 32] + state.slice(i + 1);
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

Deno.test("openState() digests the arguments only for a genuine, current state of this tool", async () => {
  let digests = 0;
  const args = () => (digests++, digestOf({ path: "a" }));
  const state = await sealState("greet", await digestOf({ path: "a" }), body);
  const late = Date.now() + STATE_TTL_MS + 1_000;
  for (
    const [junk, tool, now] of [["junk", "greet"], ["a.b", "greet"], [state, "delete"], [state, "greet", late]] as const
  ) {
    assert.equal((await openState(junk, tool, args, now)).ok, false);
  }
  assert.equal(digests, 0, "refused before the arguments were digested");
  assert.equal((await openState(state, "greet", args)).ok, true);
  assert.equal(digests, 1);
});

Deno.test("spendState() spends an opened state once; another state, or one never sealed, is its own", async () => {
  const digest = await digestOf({ path: "a" });
  const open = async (state: string) => {
    const opened = await openState(state, "greet", () => Promise.resolve(digest));
    assert.ok(opened.ok);
    return opened.body;
  };
  const first = await sealState("greet", digest, body);
  assert.equal(spendState(await open(first)), "ok");
  assert.equal(spendState(await open(first)), "replayed");
  assert.equal(spendState(await open(await sealState("greet", digest, body))), "ok", "a new state is a new nonce");
  assert.equal(spendState(body), "ok", "a body that was not opened from a state has nothing to spend");
});
