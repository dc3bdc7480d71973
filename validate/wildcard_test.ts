import assert from "node:assert/strict";
import { matchWildcard } from "./wildcard.ts";

const cases: [string, string, boolean][] = [
  ["", "", true],
  ["", "a", false],
  ["*", "", true],
  ["*", "anything at all", true],
  ["a?c", "abc", true],
  ["a?c", "ac", false],
  ["a*c", "ac", true],
  ["a*c", "abbbc", true],
  ["a*c", "abbbd", false],
  ["*.md", "README.md", true],
  ["*.md", "README.md.bak", false],
  ["*a*b*", "xxaxxbxx", true],
  ["*a*b", "xxaxxbxxb", true],
  ["note?.txt", "note😀.txt", true],
  ["note??.txt", "note😀.txt", false],
  ["?", "😀", true],
  ["ABC", "abc", false],
  ["a\\*", "a\\bc", true],
];

for (const [pattern, text, expected] of cases) {
  Deno.test(`matchWildcard(${JSON.stringify(pattern)}, ${JSON.stringify(text)}) is ${expected}`, () => {
    assert.equal(matchWildcard(pattern, text), expected);
  });
}

Deno.test("matchWildcard() does not backtrack exponentially on a pattern built for it", () => {
  const text = "a".repeat(20_000);
  // A backtracking matcher (or regular expression) would not finish; with one backtrack point this is instant.
  assert.equal(matchWildcard("*a*a*a*a*a*b", text), false);
  assert.equal(matchWildcard(`${"*a".repeat(50)}*`, text), true);
});
