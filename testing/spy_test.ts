import assert from "node:assert/strict";
import { text, type ToolRequest } from "@forge/toolkit";
import { spyHandler } from "./spy.ts";

const request = (n: number) => ({ arguments: { n } }) as unknown as ToolRequest;

Deno.test("spyHandler() records each request in order and answers what the handler answers", async () => {
  const spy = spyHandler((req) => text(`n=${req.arguments.n}`));
  assert.deepEqual(spy.calls, []);
  assert.deepEqual(await spy(request(1)), text("n=1"));
  assert.deepEqual(await spy(request(2)), text("n=2"));
  assert.deepEqual(spy.calls.map((r) => (r as { arguments: { n: number } }).arguments.n), [1, 2]);
});

Deno.test("spyHandler() records a call whose handler throws or rejects, and passes the failure on", async () => {
  const spy = spyHandler(() => {
    throw new Error("handler failed");
  });
  assert.throws(() => spy(request(1)), /handler failed/);
  const rejecting = spyHandler(() => Promise.reject(new Error("async failure")));
  await assert.rejects(Promise.resolve(rejecting(request(2))), /async failure/);
  assert.equal(spy.calls.length, 1);
  assert.equal(rejecting.calls.length, 1);
});
