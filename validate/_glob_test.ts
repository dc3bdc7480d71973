import assert from "node:assert/strict";
import { compileGlob, matchesAny } from "./_glob.ts";

const table: [string, string, boolean][] = [
  ["**/secret?.txt", "a/secret😀.txt", true],
  ["**/.env", ".env", true],
  ["**/.env", "a/b/.env", true],
  ["**/.env", "a/.env/x", false],
  ["**/.env", ".envrc", false],
  ["**/.git/**", ".git", true],
  ["**/.git/**", "repo/.git/config", true],
  ["**/.git/**", "repo/.github/x", false],
  ["**/*.pem", "k.pem", true],
  ["**/*.pem", "a/b/K.PEM", true],
  ["*.log", "a.log", true],
  ["*.log", "dir/a.log", false],
  ["logs/**", "logs", true],
  ["/secret/*", "secret/x", true],
  ["a?c", "abc", true],
  ["a?c", "ac", false],
  ["**/a/**/b", "x/a/y/z/b", true],
  ["**/a/**/b", "x/a/b", true],
  ["**/a/**/b", "x/b", false],
];

for (const [pattern, path, expected] of table) {
  Deno.test(`compileGlob(${JSON.stringify(pattern)}) ${expected ? "matches" : "does not match"} ${JSON.stringify(path)}`, () => {
    assert.equal(compileGlob(pattern)(path), expected);
  });
}

Deno.test("compileGlob() refuses empty, . and .. segments", () => {
  for (const bad of ["a//b", "a/./b", "../x", "a/"]) assert.throws(() => compileGlob(bad), TypeError);
});

Deno.test("matchesAny() is true when one pattern matches", () => {
  const matchers = ["*.a", "*.b"].map(compileGlob);
  assert.equal(matchesAny(matchers, "x.b"), true);
  assert.equal(matchesAny(matchers, "x.c"), false);
});
