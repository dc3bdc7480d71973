import assert from "node:assert/strict";
import { ClientRequests, MAX_PENDING } from "./_client_requests.ts";

function table() {
  const sent: Record<string, unknown>[] = [];
  return { sent, requests: new ClientRequests((frame) => sent.push(JSON.parse(frame))) };
}

Deno.test("ClientRequests matches a response by id; an error response rejects with the client's code, a malformed one with its problem", async () => {
  const { sent, requests } = table();
  const signal = new AbortController().signal;
  const a = requests.request("roots/list", undefined, signal);
  const b = requests.request("elicitation/create", { message: "m" }, signal);
  assert.deepEqual(sent.map((m) => m.method), ["roots/list", "elicitation/create"]);
  requests.settle(sent[1].id as string, { result: { action: "decline" } });
  requests.settle(sent[0].id as string, { error: { code: -32601, message: "no" } });
  assert.deepEqual(await b, { action: "decline" });
  await assert.rejects(a, /answered with error -32601 "no"/);
  assert.equal(requests.size, 0);
  const c = requests.request("roots/list", undefined, signal);
  requests.settle(sent[2].id as string, { problem: "why it cannot be read" });
  await assert.rejects(c, /^ToolError: Cannot get the client's answer to roots\/list: its response is malformed \(why/);
});

Deno.test("ClientRequests abandons a request when its call's signal fires, tells the client, and drops the late answer", async () => {
  const { sent, requests } = table();
  const controller = new AbortController();
  const pending = requests.request("elicitation/create", {}, controller.signal);
  controller.abort(new DOMException("deadline", "TimeoutError"));
  await assert.rejects(pending, (err: DOMException) => err.name === "TimeoutError");
  assert.deepEqual(sent[1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: sent[0].id, reason: "the tool call ended" },
  });
  requests.settle(sent[0].id as string, { result: {} });
  requests.settle(7, { result: {} });
  assert.equal(requests.size, 0);
});

Deno.test(`ClientRequests keeps at most ${MAX_PENDING} requests waiting; the next is refused, not queued`, async () => {
  const { sent, requests } = table();
  const signal = new AbortController().signal;
  const waiting = Array.from({ length: MAX_PENDING }, () => requests.request("roots/list", undefined, signal));
  await assert.rejects(requests.request("roots/list", undefined, signal), /64 requests already wait/);
  assert.equal(sent.length, MAX_PENDING);
  for (const m of sent) requests.settle(m.id as string, { result: { roots: [] } });
  await Promise.all(waiting);
});

Deno.test("ClientRequests.abandonAll() fails every waiting request at once, tells the client, and refuses later ones", async () => {
  const { sent, requests } = table();
  const signal = new AbortController().signal;
  const a = requests.request("elicitation/create", {}, signal);
  const b = requests.request("roots/list", undefined, signal);
  requests.abandonAll("input ended");
  await assert.rejects(a, /^ToolError: Cannot get the client's answer to elicitation\/create: input ended$/);
  await assert.rejects(b, /answer to roots\/list: input ended/);
  assert.deepEqual(sent.slice(2).map((m) => [m.method, (m.params as { requestId: string }).requestId]), [
    ["notifications/cancelled", sent[0].id],
    ["notifications/cancelled", sent[1].id],
  ]);
  assert.equal(requests.size, 0);
  await assert.rejects(
    requests.request("sampling/createMessage", {}, signal),
    /answer to sampling\/createMessage: input ended/,
  );
  assert.equal(sent.length, 4, "nothing more was sent");
});

Deno.test("ClientRequests.refuse() fails the request it names with the problem; one for no request of ours does nothing", async () => {
  const { sent, requests } = table();
  const pending = requests.request("roots/list", undefined, new AbortController().signal);
  requests.refuse("forge-999", "too large");
  requests.refuse(1, "too large");
  assert.equal(requests.size, 1);
  requests.refuse(sent[0].id as string, "its response is too large");
  await assert.rejects(
    pending,
    /^ToolError: Cannot get the client's answer to roots\/list: its response is too large$/,
  );
  assert.equal(requests.size, 0);
});

Deno.test("ClientRequests.endOwner() fails the requests of the call that ended, tells the client, frees their places and drops the late answer; a request of a closed call is refused", async () => {
  const { sent, requests } = table();
  const signal = new AbortController().signal;
  const ended = { open: true };
  const other = { open: true };
  const a = requests.request("elicitation/create", {}, signal, undefined, ended);
  const b = requests.request("roots/list", undefined, signal, undefined, other);
  const c = requests.request("sampling/createMessage", {}, signal, undefined, ended);
  assert.equal(requests.endOwner(other), 1);
  await assert.rejects(
    b,
    /^ToolError: Cannot get the client's answer to roots\/list: the tool call that asked has ended$/,
  );
  ended.open = false;
  assert.equal(requests.endOwner(ended), 2);
  await assert.rejects(a, /answer to elicitation\/create: the tool call that asked has ended$/);
  await assert.rejects(c, /answer to sampling\/createMessage: the tool call that asked has ended$/);
  assert.deepEqual(sent.slice(3).map((m) => (m.params as { requestId: string }).requestId), [
    sent[1].id,
    sent[0].id,
    sent[2].id,
  ]);
  assert.equal(requests.size, 0);
  assert.equal(requests.endOwner(ended), 0, "nothing of it waits any more");
  requests.settle(sent[0].id as string, { result: {} });
  await assert.rejects(requests.request("roots/list", undefined, signal, undefined, ended), /asked has ended$/);
  assert.equal(sent.length, 6, "nothing more was sent");
});
