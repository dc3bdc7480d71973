import assert from "node:assert/strict";
import { respellLegacy } from "./_regex_legacy.ts";

Deno.test("respellLegacy() drops needless escapes and escapes stray braces, and each respelling matches alike", () => {
  const cases: [string, string][] = [
    ["^[0-9]{3}\\-[0-9]{4}$", "^[0-9]{3}-[0-9]{4}$"],
    ["a\\#b\\ c", "a#b c"],
    ["[\\-a]", "[\\-a]"],
    ["x{y}", "x\\{y\\}"],
    ["a]", "a\\]"],
    ["a{2,3}", "a{2,3}"],
  ];
  for (const [legacy, respelled] of cases) {
    assert.equal(respellLegacy(legacy), respelled);
    for (const value of ["555-1234", "a#b c", "-", "x{y}", "a]", "aaa", "b"]) {
      assert.equal(new RegExp(respelled, "u").test(value), new RegExp(legacy).test(value), `${legacy} on ${value}`);
    }
  }
  assert.throws(() => new RegExp(respellLegacy("\\01"), "u"), SyntaxError, "an octal escape stays as written");
});
