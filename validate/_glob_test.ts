import assert from "node:assert/strict";
import { compileGlob, foldCase, globWork, matchesAny, matchesOrInside, namesIn } from "./_glob.ts";
import { DEFAULT_DENY } from "./policy.ts";
import { matchWildcard } from "./wildcard.ts";

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

Deno.test("matchesOrInside() matches a path in a matched folder, as .gitignore does, and nothing beside it", () => {
  const cases: [string, string, boolean][] = [
    ["**/secret*", "secrets/api.txt", true],
    ["**/secret*", "a/SECRETS/b/c.txt", true],
    ["**/private2", "deep/private2/inner/x.txt", true],
    ["deep/private", "deep/private/y.txt", true],
    ["deep/private", "deeper/private/y.txt", false],
    ["deep/private", "x/deep/private/y.txt", false],
    ["**/.env", "a/.env/x", true],
    ["**/.env", "a/.envrc/x", false],
    ["**/secret*", "ſecrets/x", true],
    ["**/*.txt", "a/b.md", false],
    ["a/b/c", "a/b", false],
  ];
  for (const [pattern, path, expected] of cases) {
    assert.equal(matchesOrInside([compileGlob(pattern)], path), expected, `${pattern} ${path}`);
  }
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

let seen: { path: string; lower: string[]; folded: string[] } | undefined;

/** Matching as a recursive search over split points, the plain reading of the rules: what the automaton must equal. */
function reference(pattern: string): (path: string) => boolean {
  const split = (text: string) => (text === "" ? [] : text.replace(/^\/+/, "").split("/"));
  const match = (p: string[], pi: number, parts: string[], si: number): boolean => {
    while (pi < p.length) {
      if (p[pi] === "**") {
        while (pi < p.length && p[pi] === "**") pi++;
        if (pi === p.length) return true;
        for (let k = si; k <= parts.length; k++) if (match(p, pi, parts, k)) return true;
        return false;
      }
      if (si >= parts.length || !matchWildcard(p[pi], parts[si])) return false;
      pi++;
      si++;
    }
    return si === parts.length;
  };
  const [lower, folded] = [split(pattern.toLowerCase()), split(foldCase(pattern))];
  return (path) => {
    if (seen?.path !== path) seen = { path, lower: split(path.toLowerCase()), folded: split(foldCase(path)) };
    return match(lower, 0, seen.lower, 0) || match(folded, 0, seen.folded, 0);
  };
}

// Letters whose case or normal form depends on what stands around them, and glob characters.
const ALPHABET = [
  "a",
  "e",
  "s",
  "S",
  "Σ",
  "σ",
  "ς",
  "ß",
  "ẞ",
  "ſ",
  "ı",
  "İ",
  "\u0301",
  "\u0345",
  "é",
  "ﬁ",
  "'",
  ".",
  "*",
  "?",
];
const PATTERNS = [
  ...DEFAULT_DENY,
  "**/a/**/s",
  "a*/**",
  "*/s?",
  "**/Σa*",
  "**/*ς",
  "a/**/*.s",
  "**/**/e",
  "stra?e",
  "**/ſ*",
];

function randomWords(seed: number): () => string {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return () => {
    const length = 1 + Math.floor(random() * 4);
    let word = "";
    for (let i = 0; i < length; i++) word += ALPHABET[Math.floor(random() * ALPHABET.length)];
    return random() < 0.3
      ? [".git", ".env", ".aws", ".ssh", "gcloud", ".config", "id_rsa"][Math.floor(random() * 7)]
      : word;
  };
}

Deno.test("compileGlob() matches as the plain recursive reading of the rules, matchesOrInside() as it on some prefix, and namesIn() as matchesOrInside() on the whole path", () => {
  const word = randomWords(11);
  const matchers = PATTERNS.map(compileGlob);
  const references = PATTERNS.map(reference);
  let denied = 0;
  let inDenied = 0;
  for (let i = 0; i < 500; i++) {
    const folder = Array.from({ length: i % 5 }, word).join("/");
    const names = Array.from({ length: 4 }, word);
    const inFolder = namesIn(matchers, folder);
    const parts = folder === "" ? [] : folder.split("/");
    const folderDenied = parts.some((_, i) => references.some((match) => match(parts.slice(0, i + 1).join("/"))));
    for (const name of names) {
      const path = folder === "" ? name : `${folder}/${name}`;
      for (let g = 0; g < PATTERNS.length; g++) {
        assert.equal(matchers[g](path), references[g](path), `${PATTERNS[g]} ${JSON.stringify(path)}`);
      }
      const whole = matchesAny(matchers, path);
      const along = matchesOrInside(matchers, path);
      assert.equal(along, folderDenied || whole, `matchesOrInside ${JSON.stringify(path)}`);
      assert.equal(inFolder(name), along, `namesIn ${JSON.stringify(path)}`);
      if (whole) denied++;
      if (along && !whole) inDenied++;
    }
  }
  assert.ok(denied > 100 && denied < 1500, `${denied} of 2000 denied: both answers are exercised`);
  assert.ok(inDenied > 100, `${inDenied} of 2000 denied by a folder alone`);
});

Deno.test("namesIn() costs a name the same segment compares in a folder 3 deep and one 300 deep", () => {
  const matchers = DEFAULT_DENY.map(compileGlob);
  const perName = (folder: string) => {
    const inFolder = namesIn(matchers, folder);
    // The folder's own segments are matched by its first name at the latest.
    assert.equal(inFolder("first"), false);
    const before = globWork.segments;
    for (const name of ["notes.txt", "Ĩnfo.md", "report-2024.csv"]) assert.equal(inFolder(name), false);
    return globWork.segments - before;
  };
  const shallow = perName("é/é/é");
  const deep = perName(Array(300).fill("é").join("/"));
  assert.ok(shallow > 0);
  assert.equal(deep, shallow, "each name is one step per glob, not the folder's segments again");
  // Matching each whole path, as a listing did, compares the folder's segments again for every name.
  const before = globWork.segments;
  matchesAny(matchers, `${Array(300).fill("é").join("/")}/notes.txt`);
  assert.ok(globWork.segments - before > 100 * shallow);
});
