import assert from "node:assert/strict";
import { describeValue } from "./describe_value.ts";

Deno.test("describeValue() names a value's kind and quotes at most 32 characters of a scalar", () => {
  assert.equal(describeValue(null), "null");
  assert.equal(describeValue(undefined), "undefined");
  assert.equal(describeValue([1]), "an array");
  assert.equal(describeValue({ a: 1 }), "an object");
  assert.equal(describeValue(7), "the number 7");
  assert.equal(describeValue(false), "the boolean false");
  assert.equal(describeValue(Infinity), "the number Infinity");
  assert.equal(describeValue("abc"), 'the string "abc"');
  assert.equal(describeValue("x".repeat(1_000_000)), `the string "${"x".repeat(32)}…"`);
  assert.equal(describeValue(10n), 'bigint "10"');
});
