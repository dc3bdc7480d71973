import assert from "node:assert/strict";
import { LineQueue } from "./_line_queue.ts";

/**
 * Runs `body` and counts the bytes (or characters) that `indexOf` on byte
 * arrays and strings looked at while it ran: the work of finding newlines,
 * counted by the runtime's own search rather than by the code under test.
 */
function scannedBy(body: () => void): number {
  let scanned = 0;
  const bytesIndexOf = Uint8Array.prototype.indexOf;
  const text = Object.getOwnPropertyDescriptor(String.prototype, "indexOf")!;
  const textIndexOf = String.prototype.indexOf;
  const count = (length: number, from: number, found: number) => {
    scanned += (found >= 0 ? found + 1 : length) - from;
  };
  Object.defineProperty(Uint8Array.prototype, "indexOf", {
    configurable: true,
    value(this: Uint8Array, value: number, from = 0): number {
      const found = bytesIndexOf.call(this, value, from);
      count(this.length, from, found);
      return found;
    },
  });
  Object.defineProperty(String.prototype, "indexOf", {
    ...text,
    value(this: string, search: string, from = 0): number {
      const found = textIndexOf.call(this, search, from);
      count(this.length, from, found);
      return found;
    },
  });
  try {
    body();
  } finally {
    Reflect.deleteProperty(Uint8Array.prototype, "indexOf");
    Object.defineProperty(String.prototype, "indexOf", text);
  }
  return scanned;
}

Deno.test("LineQueue scans each byte of a 4 MiB reply once, though it comes in 1 KiB chunks", async () => {
  const payload = "x".repeat(4 * 1024 * 1024);
  const reply = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, result: { payload } }) + "\n");
  const queue = new LineQueue();
  const chunk = 1024;
  const scanned = scannedBy(() => {
    for (let at = 0; at < reply.length; at += chunk) queue.push(reply.subarray(at, at + chunk));
  });
  // A reader that searched the whole unfinished line again on each chunk would look at ~8 GiB here.
  assert.equal(scanned, reply.length);
  const read = await queue.next(1_000, () => "ended");
  assert.equal((read.result as { payload: string }).payload.length, payload.length);
});

Deno.test("LineQueue splits lines inside and across chunks and keeps a character split between chunks", async () => {
  const queue = new LineQueue();
  const bytes = new TextEncoder().encode('1\n"é"\n3');
  const buffer = new Uint8Array(3);
  // One buffer reused for every chunk, as spawnRaw's reader does: the queue must keep its own copy.
  for (const [from, to] of [[0, 3], [3, 5], [5, 8]]) {
    buffer.fill(0).set(bytes.subarray(from, to));
    queue.push(buffer.subarray(0, to - from));
  }
  assert.deepEqual(queue.lines, ["1", '"é"']);
  queue.end();
  assert.deepEqual(queue.lines, ["1", '"é"', "3"]);
  assert.deepEqual([await queue.next(1_000, () => ""), await queue.next(1_000, () => "")], [1, "é"]);
});

Deno.test("LineQueue.next() rejects with the caller's reason once input ended and every line was taken", async () => {
  const queue = new LineQueue();
  queue.push(new TextEncoder().encode("1\n"));
  queue.end();
  assert.equal(await queue.next(1_000, () => "closed"), 1);
  await assert.rejects(queue.next(1_000, () => "the server closed stdout"), {
    message: "Cannot read a reply: the server closed stdout",
  });
});
