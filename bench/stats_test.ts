import assert from "node:assert/strict";
import { median, percentile } from "./stats.ts";

Deno.test("median() takes the middle of an odd count and the lower middle of an even count", () => {
  assert.equal(median([5, 1, 3]), 3);
  assert.equal(median([4, 1, 3, 2]), 2);
});

Deno.test("median() of nothing is NaN", () => {
  assert.ok(Number.isNaN(median([])));
});

Deno.test("percentile() uses the nearest rank and leaves its input unsorted", () => {
  const values = Array.from({ length: 100 }, (_, i) => 100 - i);
  assert.equal(percentile(values, 99), 99);
  assert.equal(percentile(values, 100), 100);
  assert.equal(percentile(values, 0), 1);
  assert.equal(values[0], 100);
});
