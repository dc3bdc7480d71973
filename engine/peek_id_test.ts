import assert from "node:assert/strict";
import { ExactNumber } from "./id.ts";
import { idOfReply, peekId, peekIsResponse } from "./peek_id.ts";

Deno.test("peekId() finds a top-level id at the start of a line", () => {
  assert.equal(peekId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"x":"', ""), 42);
  assert.equal(peekId('{ "id" : "abc", "method"', ""), "abc");
  assert.equal(peekId('{"method":"x","params":{"id":5},"id":6,', ""), 6);
});

Deno.test("peekId() ignores ids nested inside params", () => {
  assert.equal(peekId('{"method":"x","params":{"id":5,"arguments":{"text":"', ""), null);
  assert.equal(peekId('{"params":["id",1],"x":"', ""), null);
});

Deno.test("peekId() finds an id written last, as the SDK client writes it", () => {
  assert.equal(peekId('{"method":"tools/call","params":{"arguments":{"t":"', 'aaaa"}},"jsonrpc":"2.0","id":17}'), 17);
  assert.equal(peekId("{", '"}},"jsonrpc":"2.0","id":"req-9" } '), "req-9");
  assert.equal(peekId("{", 'aaa"}}}'), null);
  assert.equal(peekId("{", 'x":{"id":3}}'), null);
});

Deno.test("peekId() keeps a large numeric id as written, and refuses a value that is no id", () => {
  const id = peekId('{"id":9007199254740993,"method":"x","params":{"t":"', "");
  assert.ok(id instanceof ExactNumber);
  assert.equal(id.text, "9007199254740993");
  assert.equal(peekId('{"id":true,"method":"x"', ""), null);
  assert.equal(peekId('{"id":{"a":1},"method":"x"', ""), null);
});

Deno.test("idOfReply() reads the id of a reply however long, and nothing from a notification or batch", () => {
  const long = "r".repeat(100_000);
  assert.equal(idOfReply(`{"jsonrpc":"2.0","id":"${long}","result":{}}`), long);
  assert.equal(idOfReply('{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"m"}}'), 7);
  assert.equal(idOfReply('{"jsonrpc":"2.0","id":"a\\"b","result":1}'), 'a"b');
  assert.equal(idOfReply('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}'), null);
  assert.equal(idOfReply('[{"jsonrpc":"2.0","id":1,"result":{}}]'), null);
});

Deno.test("peekId() reads the later of two ids, and a key written with escapes, as JSON.parse reads a line", () => {
  // The same line, short enough to parse, is answered under the last id: so is one too large to.
  const head = '{"jsonrpc":"2.0","id":1,"method":"tools/call","id":2,"params":{"t":"';
  assert.equal(JSON.parse(`${head}x"}}`).id, 2);
  assert.equal(peekId(head, 'x"}}'), 2);
  assert.equal(peekId('{"id":1,"params":{"t":"', 'x"},"id":7}'), 7);
  assert.equal(peekId('{"i\\u0064":3,"params":{"t":"', 'x"}}'), 3);
  assert.equal(peekId("{", 'x"},"\\u0069d":"last"}'), "last");
  // An id in the head and none last: the head's.
  assert.equal(peekId('{"id":4,"params":{"t":"', 'x"},"method":"m"}'), 4);
});

Deno.test("peekIsResponse() takes a line with a top-level result or error and no method as a response, nested keys not", () => {
  assert.equal(
    peekIsResponse('{"jsonrpc":"2.0","id":"forge-1","result":{"action":"accept","content":{"name":"xx'),
    true,
  );
  assert.equal(peekIsResponse('{"error":{"code":1,"message":"xx'), true);
  assert.equal(
    peekIsResponse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"result":1,"error":{"a":"x'),
    false,
  );
  assert.equal(peekIsResponse('{"jsonrpc":"2.0","result":{},"method":"x","params":{"a":"x'), false);
  assert.equal(peekIsResponse('{"jsonrpc":"2.0","id":1,"params":{"result":"xx'), false);
  assert.equal(peekIsResponse('{"r\\u0065sult":{"a":"x'), true);
});
