import assert from "node:assert/strict";
import { heldCost } from "./_held_cost.ts";

Deno.test("heldCost() adds to the bytes a fixed cost per object, key, array, slot, string and boxed number", () => {
  assert.equal(heldCost(undefined, 10), 10);
  assert.equal(heldCost(null, 4), 4);
  assert.equal(heldCost(7, 1), 1, "a small integer lives in its slot");
  assert.equal(heldCost(1.5, 3), 3 + 24);
  assert.equal(heldCost(2 ** 40, 13), 13 + 24);
  assert.equal(heldCost("ab", 4), 4 + 24);
  assert.equal(heldCost({}, 2), 2 + 80);
  assert.equal(heldCost([], 2), 2 + 64);
  assert.equal(heldCost({ a: [1, "x"] }, 15), 15 + 80 + 64 + 64 + 2 * 8 + 24);
  assert.equal(heldCost({ "9": 0, "4294967294": 0, "09": 0 }, 40), 40 + 80 + 120 + 120 + 64, "index keys cost more");
  // With `text`, strings and keys count their own length (an item of a batch, whose bytes are not known).
  assert.equal(heldCost({ ab: "xyz" }, 0, true), 80 + 64 + 2 + 24 + 3);
});

Deno.test("heldCost() counts a string with a character outside Latin-1 at two bytes a character", () => {
  const wide = "€" + "x".repeat(999);
  assert.equal(heldCost(wide, 1_004), 1_004 + 24 + 1_000);
  assert.equal(heldCost("é" + "x".repeat(999), 1_003), 1_003 + 24, "Latin-1 stays one byte a character");
});

Deno.test("heldCost() walks a value nested far deeper than a call stack holds", () => {
  let deep: unknown = [];
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(heldCost(deep, 0), 200_001 * 64 + 200_000 * 8);
});

// Measured as the heap that parsed copies add (a collection while they are made only lowers the figure); a string's
// text is its bytes, so the shapes are those whose values cost most beside their text.
Deno.test("heldCost() is at least the heap a parsed request takes, for the shapes that cost most per byte", () => {
  const n = 10_000;
  const list = (item: (i: number) => string) => `[${Array.from({ length: n }, (_, i) => item(i)).join(",")}]`;
  const shapes: Record<string, string> = {
    "empty objects": list(() => "{}"),
    "empty arrays": list(() => "[]"),
    "nested objects": `{${Array.from({ length: n }, (_, i) => `"k${i}":{"a":{}}`).join(",")}}`,
    "many keys": `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",")}}`,
    "short strings": list((i) => `"s${i}"`),
    "small integers": list(() => "0"),
    "decimals": list(() => "1.5"),
    "nulls": list(() => "null"),
    "nested arrays": "[".repeat(900) + "]".repeat(900),
    // Shapes a red team found under-counted before: keys that read as array indices, one-key objects of distinct keys.
    "index keys": list(() => '{"4294967294":0}'),
    "short index keys": list(() => '{"99999":0}'),
    "distinct index keys": list((i) => `{"${1e9 + i}":0}`),
    "index key, decimal": list(() => '{"4294967294":1.5}'),
    "distinct one-key objects": list((i) => `{"k${i}":0}`),
  };
  for (const [name, line] of Object.entries(shapes)) {
    const bytes = new TextEncoder().encode(line).length;
    const copies = 40;
    const kept: unknown[] = new Array(copies).fill(JSON.parse(line));
    const before = Deno.memoryUsage().heapUsed;
    for (let i = 0; i < copies; i++) kept[i] = JSON.parse(line);
    const heap = (Deno.memoryUsage().heapUsed - before) / copies;
    const counted = heldCost(kept[0], bytes);
    assert.ok(counted >= heap, `${name}: counted ${counted} bytes for a parsed form of ${Math.round(heap)}`);
  }
});
