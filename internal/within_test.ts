import assert from "node:assert/strict";
import { within } from "./within.ts";

Deno.test("within() resolves when the promise settles, a rejection included, and leaves no timer behind", async () => {
  let settled = false;
  await within(Promise.resolve().then(() => (settled = true)), 60_000);
  assert.equal(settled, true);
  await within(Promise.reject(new Error("ignored")), 60_000);
  // The test sanitizer fails this test if a 60 s timer were still armed.
});

// Nothing else holds this process: within() must, while it waits (V8's timer does not), or the test runner's event
// loop runs dry before the bound passes.
Deno.test("within() stops waiting for a promise that never settles once its bound passes", async () => {
  const never = new Promise<void>(() => {});
  await within(never, 1);
  await within(never, 0);
  await within(never, -5);
});
