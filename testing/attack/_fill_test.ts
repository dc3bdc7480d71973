import assert from "node:assert/strict";
import { encodeLine, fill } from "./_fill.ts";

Deno.test("fill() escapes a value placed inside a JSON string and copies it raw outside one", () => {
  const values = { p: 'a\\b"c', n: "7" };
  assert.equal(fill('{"x":"@@p@@","y":@@n@@}', values), '{"x":"a\\\\b\\"c","y":7}');
  assert.deepEqual(JSON.parse(fill('{"x":"@@p@@"}', values)), { x: 'a\\b"c' });
  assert.equal(fill('"\\"@@n@@"', values), '"\\"7"', "an escaped quote does not end the string");
});

Deno.test("fill() repeats template text and refuses an unknown placeholder", () => {
  assert.equal(fill('@@repeat:3:{"a":@@1@@repeat:3:}@@', {}), '{"a":{"a":{"a":1}}}');
  assert.equal(fill("http://x.com@@@h@@/", { h: "127.0.0.1" }), "http://x.com@127.0.0.1/");
  assert.throws(() => fill("@@nope@@", {}), /Cannot fill placeholder "@@nope@@"/);
});

Deno.test("encodeLine() writes @@bytes@@ as raw bytes, which no UTF-8 string can hold", () => {
  assert.deepEqual([...encodeLine('"@@bytes:ff fe@@"')], [0x22, 0xff, 0xfe, 0x22, 0x0a]);
});
