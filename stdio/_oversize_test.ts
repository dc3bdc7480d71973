import assert from "node:assert/strict";
import { requestTooLargeReply } from "./_oversize.ts";

const enc = new TextEncoder();
const frame = (head: string, tail: string, size: number) => ({
  kind: "oversize" as const,
  size,
  head: enc.encode(head),
  tail: enc.encode(tail),
});

Deno.test("requestTooLargeReply() answers -32600 under the id read from the line's first bytes, with size and limit", () => {
  const reply = JSON.parse(
    requestTooLargeReply(frame('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"a":"', 'x"}}', 9000), 4096),
  );
  assert.deepEqual(reply, {
    jsonrpc: "2.0",
    id: 5,
    error: {
      code: -32600,
      message: "Message too large: 9000 bytes exceeds the limit of 4096 bytes (maxMessageBytes)",
      data: { size: 9000, limit: 4096 },
    },
  });
});

Deno.test("requestTooLargeReply() finds an id written last, and answers with a null id when there is none", () => {
  assert.equal(
    JSON.parse(requestTooLargeReply(frame('{"method":"x","params":{"a":"', 'a"},"id":"last"}', 10), 1)).id,
    "last",
  );
  assert.equal(JSON.parse(requestTooLargeReply(frame('{"method":"x","params":{"a":"', 'a"}}', 10), 1)).id, null);
});

Deno.test("requestTooLargeReply() reads kept bytes cut inside a UTF-8 character without failing", () => {
  const head = enc.encode('{"id":"é","method":"x","params":{"a":"é');
  const cut = { kind: "oversize" as const, size: 10, head: head.subarray(0, head.length - 1), tail: enc.encode('"}}') };
  assert.equal(JSON.parse(requestTooLargeReply(cut, 1)).id, "é");
});
