import assert from "node:assert/strict";
import { quote } from "./quote.ts";

Deno.test("quote() quotes a value as JSON, escaping quotes and control characters", () => {
  assert.equal(quote("abc"), '"abc"');
  assert.equal(quote('a"b'), '"a\\"b"');
  assert.equal(quote("a\nb\u0000"), '"a\\nb\\u0000"');
});

Deno.test("quote() shows a value that is not a string as String(value)", () => {
  assert.equal(quote(7), '"7"');
  assert.equal(quote(undefined), '"undefined"');
  assert.equal(quote({}), '"[object Object]"');
});

Deno.test("quote() cuts a value to 64 characters by default and to max when given", () => {
  assert.equal(quote("x".repeat(64)), `"${"x".repeat(64)}"`);
  assert.equal(quote("x".repeat(65)), `"${"x".repeat(64)}…"`);
  assert.equal(quote("abcdef", 3), '"abc…"');
  assert.equal(quote("abc", 3), '"abc"');
});

Deno.test("quote() of a megabyte of hostile input stays short", () => {
  assert.equal(quote("\u0001".repeat(1_000_000)).length, 2 + 64 * 6 + 1);
  assert.equal(quote("x".repeat(1_000_000), 100).length, 100 + 3);
});
