import assert from "node:assert/strict";
import { assertNoNestedRepos, nestedRepos, stagedPaths } from "./nested_repos.ts";

const ID = "ce8ae6a522f30fd3686d2a9d5d376bb3401c02a1";

Deno.test("nestedRepos() finds tracked gitlinks and untracked nested repositories, and nothing else", () => {
  const staged = `100644 ${ID} 0\t160000 lookalike\x00120000 ${ID} 0\tlink\x00160000 ${ID} 0\tdeps/lib\0`;
  assert.deepEqual(nestedRepos(staged.split("\0"), "plain.txt\0dir/file\0sub/\0".split("\0")), ["deps/lib", "sub"]);
  assert.deepEqual(nestedRepos([], []), []);
});

Deno.test("stagedPaths() keeps everything after the first tab, tabs in names included", () => {
  assert.deepEqual(stagedPaths(`100644 ${ID} 0\ta\tb\x00160000 ${ID} 0\tsub\0`.split("\0")), ["a\tb", "sub"]);
});

Deno.test("assertNoNestedRepos() refuses naming the first nested repository, and passes none", () => {
  assert.throws(() => assertNoNestedRepos("app", ["sub", "other"]), {
    message: 'Cannot commit "sub" in repo "app": it is a git repository of its own (a submodule), ' +
      "and this server commits files only",
  });
  assertNoNestedRepos("app", []);
});
