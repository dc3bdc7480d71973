import assert from "node:assert/strict";
import { quote } from "./_quote.ts";

Deno.test("quote() quotes a value and cuts hostile lengths short", () => {
  assert.equal(quote('a"b'), '"a\\"b"');
  assert.equal(quote("x".repeat(1_000_000)).length, 64 + 3);
  assert.equal(quote("abcdef", 3), '"abc…"');
});
