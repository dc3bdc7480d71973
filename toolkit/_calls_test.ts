import assert from "node:assert/strict";
import { CallTable } from "./_calls.ts";

Deno.test("CallTable aborts each call with a TimeoutError at its own deadline, using one timer", async () => {
  const table = new CallTable();
  const fast = table.open("a", 20);
  const slow = table.open("b", 1_000);
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(fast.controller.signal.aborted, true);
  assert.equal(fast.cause, "timeout");
  assert.equal((fast.controller.signal.reason as DOMException).name, "TimeoutError");
  assert.equal(slow.controller.signal.aborted, false);
  await new Promise((r) => setTimeout(r, 1_000));
  assert.equal(slow.controller.signal.aborted, true);
  table.dispose();
});

Deno.test("CallTable does not abort a call closed before its deadline", async () => {
  const table = new CallTable();
  const call = table.open("a", 20);
  table.close(call);
  assert.equal(table.size, 0);
  await new Promise((r) => setTimeout(r, 40));
  assert.equal(call.controller.signal.aborted, false);
  table.dispose();
});

Deno.test("CallTable.abortAll() aborts every call once, keeping the first cause", () => {
  const table = new CallTable();
  const a = table.open("a", 10_000);
  const b = table.open("b", 10_000);
  table.abort(a, "cancelled", new DOMException("x", "AbortError"));
  table.abortAll("shutdown", new DOMException("y", "AbortError"));
  assert.equal(a.cause, "cancelled");
  assert.equal(b.cause, "shutdown");
  table.dispose();
});
