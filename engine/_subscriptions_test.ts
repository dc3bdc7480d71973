import assert from "node:assert/strict";
import { META_SUBSCRIPTION } from "./_era.ts";
import { MAX_SUBSCRIPTIONS, Subscriptions } from "./_subscriptions.ts";

function subscriptions(): { subs: Subscriptions; sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  return { subs: new Subscriptions((frame) => sent.push(JSON.parse(String(frame)))), sent };
}

const tools = { notifications: { toolsListChanged: true } };

Deno.test("Subscriptions.listen() acknowledges a tools listener and keeps it open, with no reply yet", () => {
  const { subs, sent } = subscriptions();
  assert.equal(subs.listen(1, tools), undefined);
  assert.equal(subs.has(1), true);
  assert.deepEqual(sent, [{
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: { notifications: { toolsListChanged: true }, _meta: { [META_SUBSCRIPTION]: 1 } },
  }]);
});

Deno.test("Subscriptions.listen() completes at once a listen that asks for nothing it can deliver", () => {
  const { subs, sent } = subscriptions();
  const reply = JSON.parse(String(subs.listen("a", { notifications: { resourcesListChanged: true } })));
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: "a",
    result: { resultType: "complete", _meta: { [META_SUBSCRIPTION]: "a" } },
  });
  assert.equal(subs.has("a"), false);
  assert.deepEqual((sent[0].params as Record<string, unknown>).notifications, {});
});

Deno.test("Subscriptions.toolsChanged() tells each listener under its id, and the session once when initialized", () => {
  const { subs, sent } = subscriptions();
  subs.listen(1, tools);
  subs.listen(2, tools);
  sent.length = 0;
  subs.toolsChanged(true);
  assert.deepEqual(sent, [
    { jsonrpc: "2.0", method: "notifications/tools/list_changed" },
    { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [META_SUBSCRIPTION]: 1 } } },
    { jsonrpc: "2.0", method: "notifications/tools/list_changed", params: { _meta: { [META_SUBSCRIPTION]: 2 } } },
  ]);
  sent.length = 0;
  subs.cancel(1);
  subs.toolsChanged(false);
  assert.deepEqual(sent.map((m) => m.params), [{ _meta: { [META_SUBSCRIPTION]: 2 } }]);
});

Deno.test("Subscriptions refuses the listener past the limit as busy, and takes one again after a cancellation", () => {
  const { subs } = subscriptions();
  for (let id = 0; id < MAX_SUBSCRIPTIONS; id++) assert.equal(subs.listen(id, tools), undefined);
  const busy = JSON.parse(String(subs.listen("over", tools)));
  assert.equal(busy.error.data.reason, "server_busy");
  assert.equal(busy.error.data.limit, MAX_SUBSCRIPTIONS);
  assert.equal(subs.has("over"), false);
  assert.equal(subs.cancel(0), true);
  assert.equal(subs.cancel(0), false, "a second cancellation finds nothing");
  assert.equal(subs.listen("over", tools), undefined);
});

Deno.test("Subscriptions.endAll() completes every open listener once and forgets them", () => {
  const { subs, sent } = subscriptions();
  subs.listen(1, tools);
  subs.listen(2, tools);
  sent.length = 0;
  subs.endAll();
  assert.deepEqual(sent.map((m) => [m.id, (m.result as Record<string, unknown>).resultType]), [[1, "complete"], [
    2,
    "complete",
  ]]);
  assert.equal(subs.has(1), false);
  sent.length = 0;
  subs.endAll();
  assert.deepEqual(sent, []);
});
