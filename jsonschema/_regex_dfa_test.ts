import assert from "node:assert/strict";
import { type LinearRegex, linearRegex } from "./_regex.ts";

Deno.test("the lazy DFA forgets its states past its budget and keeps giving V8's verdicts", () => {
  // "an a thirteen from the end" needs 2^13 states: more than the budget keeps, so the cache is dropped mid-string.
  const source = "(a|b)*a(a|b){12}$";
  const ours = linearRegex(source) as LinearRegex;
  const v8 = new RegExp(source, "u");
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let matched = 0;
  for (let k = 0; k < 200; k++) {
    let value = "";
    for (let i = 0; i < 300; i++) value += next() < 0.5 ? "a" : "b";
    const expected = v8.test(value);
    assert.equal(ours.test(value), expected, value);
    if (expected) matched++;
  }
  assert.ok(matched > 50 && matched < 150, `${matched} of 200 matched`);
  assert.ok(ours.steps <= 3 * ours.size * 300 * 200, `${ours.steps} steps`);
});
