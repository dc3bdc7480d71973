import assert from "node:assert/strict";
import { quote } from "./_quote.ts";

Deno.test("quote() quotes and cuts long values", () => {
  assert.equal(quote("a"), '"a"');
  assert.equal(quote("abcdef", 3), '"abc…"');
  assert.equal(quote(7), '"7"');
});
