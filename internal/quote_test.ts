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

Deno.test("quote() escapes characters that change how a message reads: bidi overrides, zero-width, separators", () => {
  assert.equal(quote("a\u202Eb"), '"a\\u202eb"');
  assert.equal(quote("\u2066x\u2069\u200B\u2028\uFEFF"), '"\\u2066x\\u2069\\u200b\\u2028\\ufeff"');
  assert.equal(quote("naïve ✓"), '"naïve ✓"', "other characters stay as they are");
});

Deno.test("quote() writes a value's own … as \\u2026, so the only … a quote holds is its cut", () => {
  assert.equal(quote("sk-li…"), '"sk-li\\u2026"');
  assert.equal(quote("a…".repeat(40), 4), '"a\\u2026a\\u2026…"');
  assert.equal(quote("…".repeat(1_000_000)).split("…").length - 1, 1);
});
