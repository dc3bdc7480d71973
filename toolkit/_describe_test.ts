import assert from "node:assert/strict";
import { describe } from "./_describe.ts";

Deno.test("describe() names a value's kind and quotes at most 32 characters of a scalar", () => {
  assert.equal(describe(null), "null");
  assert.equal(describe(undefined), "undefined");
  assert.equal(describe([1]), "an array");
  assert.equal(describe({ a: 1 }), "an object");
  assert.equal(describe(7), "the number 7");
  assert.equal(describe(false), "the boolean false");
  assert.equal(describe(Infinity), "the number Infinity");
  assert.equal(describe("abc"), 'the string "abc"');
  assert.equal(describe("x".repeat(1_000_000)), `the string "${"x".repeat(32)}…"`);
  assert.equal(describe(10n), 'bigint "10"');
});
