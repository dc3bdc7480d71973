import assert from "node:assert/strict";
import { assertSmallPattern, MAX_PATTERN_NODES, patternNodes } from "./grep_pattern.ts";

Deno.test("patternNodes() counts what glibc's regcomp copies: repetitions multiply, nest and stack", () => {
  assert.equal(patternNodes("abc"), 3);
  assert.equal(patternNodes("a|b"), 3);
  assert.equal(patternNodes("(ab)"), 4);
  assert.equal(patternNodes("a*"), 2);
  assert.equal(patternNodes("a+"), 3);
  assert.equal(patternNodes("a{3}"), 7);
  assert.equal(patternNodes("a{2,5}"), 11);
  assert.equal(patternNodes("a{2,}"), 7);
  assert.equal(patternNodes("a{,4}"), 9);
  assert.equal(patternNodes("(a{9}){9}"), 9 * (19 + 2 + 1) + 1);
  assert.equal(patternNodes("a{9}{9}"), 9 * (19 + 1) + 1, "stacked intervals multiply as nested ones");
  // A `{` that opens no interval, an escaped one and one in a bracket expression are bytes.
  assert.equal(patternNodes("f() {"), 5);
  assert.equal(patternNodes("\\{9999}"), 6);
  assert.equal(patternNodes("[{]9999}"), 6);
  // A `)` or `|` in a bracket expression ends nothing; a `]` first in one is a member.
  assert.equal(patternNodes("([)]a{1,100}){1,100}"), MAX_PATTERN_NODES + 1);
  assert.equal(patternNodes("([]|)]a{1,100}){1,100}"), MAX_PATTERN_NODES + 1);
  assert.equal(patternNodes("([[:alpha:]]a{1,100}){1,100}"), MAX_PATTERN_NODES + 1);
  assert.equal(patternNodes("[[:alpha:]"), undefined);
  assert.equal(patternNodes("[abc"), undefined);
  // An unmatched `)` is a byte to glibc's ERE, and does not end the pattern.
  assert.equal(patternNodes("a)b{1,3000}"), MAX_PATTERN_NODES + 1);
});

Deno.test("assertSmallPattern() refuses a pattern that expands past the limit, and lets real ones through", () => {
  for (const ok of ["[0-9a-f]{40}", "^func [A-Z]\\w+\\(", "a{1,1023}", "(foo|bar)+baz", "x".repeat(1000), "é{1,500}"]) {
    assertSmallPattern(ok);
  }
  for (const bad of ["a{1,32767}", "a{255}{255}{255}", "(){1,2000}", "((a?){1,40}){1,40}", "(a|){1,511}"]) {
    assert.throws(() => assertSmallPattern(bad), /repetitions expand to over 2048 parts/, bad);
  }
  assert.throws(() => assertSmallPattern("[[:alpha:"), /bracket expression that is not closed/);
});
