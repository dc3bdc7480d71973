import assert from "node:assert/strict";
import { wholeCharacters } from "./_utf8.ts";

Deno.test("wholeCharacters() stops before a cut character", () => {
  const bytes = new TextEncoder().encode("aé😀");
  assert.equal(wholeCharacters(bytes), 7);
  assert.equal(wholeCharacters(bytes.subarray(0, 6)), 3);
  assert.equal(wholeCharacters(bytes.subarray(0, 2)), 1);
  assert.equal(wholeCharacters(new Uint8Array()), 0);
});
