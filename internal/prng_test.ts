import assert from "node:assert/strict";
import { prng, shuffled } from "./prng.ts";

Deno.test("prng() replays the same sequence for the same seed and another for another seed", () => {
  const take = (seed: number) => Array.from({ length: 5 }, prng(seed));
  assert.deepEqual(take(42), take(42));
  assert.notDeepEqual(take(42), take(43));
  for (const n of take(7)) assert.ok(n >= 0 && n < 1);
});

Deno.test("shuffled() keeps every item and leaves its input alone", () => {
  const items = [1, 2, 3, 4, 5, 6, 7, 8];
  const out = shuffled(items, prng(1));
  assert.deepEqual([...out].sort(), items);
  assert.deepEqual(items, [1, 2, 3, 4, 5, 6, 7, 8]);
});
