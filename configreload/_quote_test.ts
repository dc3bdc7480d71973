import assert from "node:assert/strict";
import { quote } from "./_quote.ts";

Deno.test("quote() cuts a long value short and quotes it", () => {
  assert.equal(quote("abc"), '"abc"');
  assert.equal(quote("x".repeat(100), 4), '"xxxx…"');
  assert.equal(quote('a"b'), '"a\\"b"');
  assert.equal(quote(12), '"12"');
});
