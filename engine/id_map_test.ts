import assert from "node:assert/strict";
import { comparedIds, IdMap } from "./id_map.ts";
import { ExactNumber } from "./id.ts";

/** A string of `length` units as the large-line parser leaves one: a € and ASCII, joined from pieces (not flat). */
function piecewise(length: number, last = "a"): string {
  const decoder = new TextDecoder();
  const piece = new Uint8Array(1 << 16).fill(0x61);
  let text = "€";
  while (text.length + piece.length < length) text += decoder.decode(piece);
  return text + "a".repeat(length - text.length - 1) + last;
}

Deno.test("IdMap holds short and long string ids, numbers and exact numbers as a Map does, in insertion order", () => {
  const map = new IdMap<string>();
  const long = piecewise(70_000);
  const exact = ExactNumber.of("1.50");
  map.set("a", "short").set(long, "long").set(7, "number").set(exact, "exact");
  assert.equal(map.size, 4);
  assert.deepEqual([...map.keys()], ["a", long, 7, exact]);
  assert.deepEqual([...map.values()], ["short", "long", "number", "exact"]);
  assert.deepEqual([...map], [["a", "short"], [long, "long"], [7, "number"], [exact, "exact"]]);
  // Another string with the same characters is the same id; one of the same length that differs is not.
  assert.equal(map.get(piecewise(70_000)), "long");
  assert.equal(map.has(piecewise(70_000, "b")), false);
  map.set(piecewise(70_000, "b"), "other");
  assert.equal(map.size, 5);
  assert.equal(map.get(long), "long");
  map.set(`${long}`, "again");
  assert.equal(map.size, 5, "set on a held id replaces its value");
  assert.equal(map.get(long), "again");
  assert.equal(map.delete(piecewise(70_000)), true);
  assert.equal(map.delete(long), false);
  assert.equal(map.get(piecewise(70_000, "b")), "other");
  assert.equal(map.has(7) && map.has("a") && map.has(ExactNumber.of("1.50")), true);
  assert.equal(map.has("7"), false, "the string 7 is not the number 7");
  map.clear();
  assert.equal(map.size, 0);
  assert.equal(map.has(piecewise(70_000, "b")), false);
});

Deno.test("IdMap never makes a long id a Map key: holding and finding it copies nothing (a Map copies it whole)", () => {
  // 20 M units with a €: 40 MB as a string. Garbage collection can only make the heap smaller, so a growth of a
  // few MB at most means no copy was made; the control shows that a Map's copy is seen, a collection or not.
  const grows = (hold: (id: string) => unknown): number => {
    const id = piecewise(20_000_000);
    // Made flat first, as writing it or any look at its characters makes it: only the key's own copy is left.
    id.charCodeAt(10);
    const before = Deno.memoryUsage().heapUsed;
    const held = hold(id);
    const grown = Deno.memoryUsage().heapUsed - before;
    assert.ok(held);
    return grown;
  };
  const map = grows((id) => new Map([[id, 1]]).has(id));
  assert.ok(map > 10e6, `a Map's key was copied: the heap grew by ${map} bytes`);
  const idMap = grows((id) => {
    const ids = new IdMap<number>().set(id, 1);
    return ids.has(id) && ids.get(id) === 1 && [...ids.keys()][0] === id;
  });
  assert.ok(idMap < 5e6, `the heap grew by ${idMap} bytes`);
});

Deno.test("IdMap finds an id among a thousand long ids of its length that differ only at their end in a few comparisons each (V8 hashes a string of over 16,383 units by its length: a Map compared it with every one)", () => {
  // Each id new, as a message's parse makes it: JSON.parse of its text, so it is flat.
  const made = (length: number, i: number, last: string) =>
    JSON.parse(`"${"x".repeat(length - 9)}${String(i).padStart(8, "0")}${last}"`) as string;
  const count = 1_024;
  for (const length of [16_384, 20_000, 70_000]) {
    const map = new IdMap<number>();
    const before = comparedIds();
    for (let i = 0; i < count; i++) map.set(made(length, i, "a"), i);
    for (let i = 0; i < count; i++) assert.equal(map.get(made(length, i, "a")), i);
    for (let i = 0; i < count; i++) assert.equal(map.has(made(length, i, "b")), false);
    // Four searches an id (set: a miss, then its place; get; has), each a binary search of at most 11 comparisons
    // among 1,024, where a scan makes 512 on average.
    const compared = comparedIds() - before;
    assert.ok(compared > 0 && compared <= 4 * count * 11, `${compared} comparisons for ${count} ids`);
  }
});

Deno.test("IdMap agrees with a Map on 20,000 random sets and deletes of ids of one length, short and long, deleted while iterated too", () => {
  // A Map of the ids' texts is the reference: a string id is its text, a number or an exact number itself.
  let seed = 58;
  const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n;
  const ends = ["A", "B", "\ud800", "\udc00", "\u0000", "€"];
  for (const units of [10, 16_383, 16_384, 65_537]) {
    const head = "h".repeat(units - 3);
    const ids = [...Array.from({ length: 60 }, (_, i) => `${head}${ends[i % 6]}${String(i).padStart(2, "0")}`), 7, "7"];
    const map = new IdMap<number>();
    const reference = new Map<unknown, number>();
    for (let step = 0; step < 5_000; step++) {
      // A new string each time, as a message's parse makes it.
      const id = ids[random(ids.length)];
      const fresh = typeof id === "string" ? JSON.parse(JSON.stringify(id)) : id;
      if (random(3) === 0) assert.equal(map.delete(fresh), reference.delete(id));
      else {
        map.set(fresh, step);
        reference.set(id, step);
      }
      assert.equal(map.get(fresh), reference.get(id));
      assert.equal(map.size, reference.size);
    }
    assert.deepEqual([...map], [...reference]);
    // A shutdown that walks the table while entries leave it.
    for (const id of map.keys()) {
      map.delete(id);
      reference.delete(id);
      assert.equal(map.has(id), false);
    }
    assert.equal(map.size, 0);
    assert.equal(reference.size, 0);
  }
});
