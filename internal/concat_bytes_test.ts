import assert from "node:assert/strict";
import { concatBytes } from "./concat_bytes.ts";

Deno.test("concatBytes() joins parts in order into a new array, views and empty parts included", () => {
  const backing = new Uint8Array([9, 1, 2, 9]);
  const parts = [backing.subarray(1, 3), new Uint8Array(0), new Uint8Array([3])];
  const joined = concatBytes(parts);
  assert.deepEqual(joined, new Uint8Array([1, 2, 3]));
  joined[0] = 7;
  assert.equal(backing[1], 1, "a copy, not a view");
  assert.deepEqual(concatBytes([]), new Uint8Array(0));
});
