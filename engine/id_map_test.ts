import assert from "node:assert/strict";
import { IdMap } from "./id_map.ts";
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
