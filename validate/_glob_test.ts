import assert from "node:assert/strict";
import { compileGlob, foldCase, matchesAny } from "./_glob.ts";

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

Deno.test("compileGlob() denies a name that a case-insensitive file system folds to a denied one", () => {
  // NTFS upper-cases ſ to S and ı to I; ext4 casefold and APFS fold ß, ẞ to ss, ﬁ to fi, ς to σ, and compose é.
  const cases: [string, string][] = [
    ["**/secret*", "ſecret.txt"],
    ["**/.git/**", ".gıt/config"],
    ["**/.git/**", "repo/.GıT/config"],
    ["**/.aws/**", ".AWſ/credentials"],
    ["**/.ssh/**", ".ßh/id_rsa"],
    ["**/.ssh/**", ".ẞh/id_rsa"],
    ["**/*.conﬁg", "a.config"],
    ["**/*.config", "a.conﬁg"],
    ["**/σοφία", "ΣΟΦΊΑ"],
    ["**/σοφίας", "σοφίασ"],
    ["**/café", "cafe\u0301"],
    ["**/cafe\u0301", "CAFÉ"],
  ];
  for (const [pattern, path] of cases) assert.equal(compileGlob(pattern)(path), true, `${pattern} ${path}`);
  // Lower-casing still decides too: `?` is one character of the name as written.
  assert.equal(compileGlob("**/stra?e")("straße"), true);
  assert.equal(compileGlob("**/stra?e")("STRAßE"), true);
  // ASCII matching is unchanged.
  assert.equal(compileGlob("**/secret*")("sacret.txt"), false);
  assert.equal(compileGlob("**/.git/**")(".gjt/config"), false);
  assert.equal(compileGlob("a?c")("abbc"), false);
});

Deno.test("foldCase() folds alike every pair a case-insensitive file system takes for one name", () => {
  for (const [a, b] of [["ſ", "s"], ["ı", "I"], ["ß", "SS"], ["ẞ", "ss"], ["ﬃ", "FFI"], ["K", "k"], ["ς", "Σ"]]) {
    assert.equal(foldCase(a), foldCase(b), `${a} ${b}`);
  }
  assert.equal(foldCase("ReadMe.MD"), "readme.md");
});
