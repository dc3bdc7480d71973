import assert from "node:assert/strict";
import { BATCH_VERSION } from "./_era.ts";
import { batchReply, BatchSlot, MAX_BATCH_ITEMS, type Outgoing, tooLargeForBatch } from "./_batch.ts";
import type { Message } from "./jsonrpc.ts";
import { utf8Length } from "../internal/utf8_length.ts";

const request = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" });
/** Answers each request with `size` bytes of result, later for odd ids; notifications get nothing. */
const echo = (size = 1) => (msg: Message) => {
  if (msg.kind !== "request") {
    return msg.kind === "invalid" ? JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: msg.error }) : undefined;
  }
  const reply = JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: "r".repeat(size) });
  return (msg.id as number) % 2 === 1 ? Promise.resolve(reply) : reply;
};

Deno.test("batchReply() answers each item in one array, in order, sync and async replies alike, notifications skipped", async () => {
  const items = [request(1), request(2), { jsonrpc: "2.0", method: "notifications/initialized" }, request(3)];
  const reply = await batchReply(BATCH_VERSION, items, echo(), 1_000_000);
  assert.deepEqual(JSON.parse(reply as string).map((r: { id: number }) => r.id), [1, 2, 3]);
});

Deno.test("batchReply() answers nothing for a batch of notifications only", async () => {
  const items = [{ jsonrpc: "2.0", method: "notifications/initialized" }];
  assert.equal(await batchReply(BATCH_VERSION, items, echo(), 1_000_000), undefined);
});

Deno.test("batchReply() refuses a batch outside 2025-03-26, or one past MAX_BATCH_ITEMS, with one -32600 and runs nothing", () => {
  let ran = 0;
  const counting = (msg: Message) => (ran++, echo()(msg));
  for (const version of [undefined, "2025-06-18"]) {
    const reply = JSON.parse(batchReply(version, [request(1)], counting, 1_000_000) as string);
    assert.equal(reply.error.code, -32600);
    assert.match(reply.error.message, /batches are not part of protocol version/);
  }
  const many = Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => request(i));
  const reply = JSON.parse(batchReply(BATCH_VERSION, many, counting, 1_000_000) as string);
  assert.deepEqual(reply.error.data, { items: MAX_BATCH_ITEMS + 1, limit: MAX_BATCH_ITEMS });
  assert.equal(ran, 0);
});

Deno.test("batchReply() refuses whole a batch whose ids alone cannot fit in maxBytes", () => {
  const items = [{ jsonrpc: "2.0", id: "i".repeat(5000), method: "ping" }];
  const reply = JSON.parse(batchReply(BATCH_VERSION, items, echo(), 4096) as string);
  assert.equal(reply.id, null);
  assert.match(reply.error.message, /its ids alone take too much/);
});

Deno.test("batchReply() keeps the array within maxBytes: a reply that does not fit gets its reserved error", async () => {
  const maxBytes = 2000;
  const items = [request(2), request(4), request(6)];
  const reply = await batchReply(BATCH_VERSION, items, echo(900), maxBytes) as string;
  assert.ok(utf8Length(reply) <= maxBytes, `${utf8Length(reply)} bytes`);
  const answers = JSON.parse(reply);
  assert.deepEqual(answers.map((a: { id: number }) => a.id), [2, 4, 6], "every request is answered once");
  assert.equal(answers.filter((a: { result?: string }) => a.result !== undefined).length, 1);
  assert.deepEqual(answers[2], JSON.parse(String(tooLargeForBatch(6, maxBytes))));
});

Deno.test("BatchSlot.take() gives back its reservation when its item has no reply, and keeps its first answer", () => {
  const room = { free: 10 };
  const fallback = tooLargeForBatch(1, 100);
  const slot = new BatchSlot(room, fallback, 50);
  assert.equal(slot.limit(), 59);
  assert.equal(slot.take(undefined), undefined);
  assert.equal(room.free, 60);
  assert.equal(slot.take("late"), undefined, "a second take returns what the first took");
  const other = new BatchSlot(room, fallback, 50);
  assert.equal(other.take("x".repeat(200)), fallback);
  assert.equal(room.free, 60, "the fallback uses its own reservation only");
});

Deno.test("BatchSlot.take() refuses a string reply longer than its limit without reading it", () => {
  const room = { free: 100 };
  const fallback = tooLargeForBatch(1, 1000);
  const slot = new BatchSlot(room, fallback, 60);
  // Every unit utf8Length() reads goes through String.prototype.charCodeAt: counting the calls shows whether the
  // reply was measured (a red team's batch of 1,024 items measured a 30 MB reply each, 68 s in one turn).
  const charCodeAt = String.prototype.charCodeAt;
  let read = 0;
  String.prototype.charCodeAt = function (this: string, index: number): number {
    read++;
    return charCodeAt.call(this, index);
  };
  let taken: Outgoing | undefined;
  try {
    taken = slot.take("x".repeat(slot.limit() + 1));
  } finally {
    String.prototype.charCodeAt = charCodeAt;
  }
  assert.equal(taken, fallback);
  assert.equal(read, 0, "the reply was not read");
  assert.equal(room.free, 100, "the fallback uses its own reservation only");
});
