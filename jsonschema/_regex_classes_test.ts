import assert from "node:assert/strict";
import { CodePointClasses } from "./_regex_classes.ts";

const NEEDS = { word: false, wordIgnoreCase: false, lines: false };

Deno.test("CodePointClasses tests each code point's atoms once for the pattern's life, however many a string cycles through", () => {
  // The classes of `[\p{L}\p{N}]` and `x`: a letter or digit, `x`, anything else.
  const classes = new CodePointClasses([
    { source: "[\\p{L}\\p{N}]", flags: "u", literal: undefined },
    { source: "x", flags: "u", literal: 0x78 },
  ], NEEDS);
  // 20,000 distinct astral letters (CJK Extension B), then the same again: a cache of 4,096 that starts over when
  // full would test all 40,000.
  const first = 0x20000;
  const ids = new Set<number>();
  for (let round = 0; round < 2; round++) {
    for (let cp = first; cp < first + 20_000; cp++) ids.add(classes.of(cp));
  }
  assert.equal(classes.classified, 20_000);
  assert.equal(ids.size, 1, "one class: letters");
  assert.deepEqual([...classes.atomsOf[[...ids][0]]], [1, 0]);
  // ASCII and the rest keep their own classes.
  assert.deepEqual([...classes.atomsOf[classes.of(0x78)]], [1, 1]);
  assert.deepEqual([...classes.atomsOf[classes.of(0x2603)]], [0, 0], "☃ is neither");
  assert.notEqual(classes.of(0x2603), classes.of(0x41));
  assert.equal(classes.of(0x10ffff), classes.of(0x2603), "the last code point, unassigned, is neither");
});
