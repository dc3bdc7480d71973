import assert from "node:assert/strict";
import { arg } from "@forge/toolkit/validate";
import { knownFailure, tooLargeWords } from "./git_failure.ts";

const blame = [arg.word("blame"), arg.flag("--no-textconv"), arg.operands("path", ["a.txt"])];

Deno.test("knownFailure() names a path git quoted only when the caller sent exactly it", () => {
  const said = (stderr: string) => knownFailure({ stdout: "", stderr }, blame);
  assert.equal(said("fatal: no such path 'a.txt' in HEAD\n"), 'path "a.txt" is not a committed file at that revision');
  assert.equal(said("fatal: no such path 'secret' in HEAD\n"), "a path is not a committed file at that revision");
  const tree = "0123456789abcdef0123456789abcdef01234567";
  const show = [arg.word("show"), arg.value("rev", `${tree}:src/a:b.txt`)];
  assert.equal(
    knownFailure({ stdout: "", stderr: `fatal: bad revision '${tree}:src/a:b.txt'\n` }, show),
    'path "src/a:b.txt" does not exist at that revision',
  );
});

Deno.test("knownFailure() knows nothing from a line git quoted after a prefix of its own, wherever it stands", () => {
  for (
    const stderr of [
      "fatal: unexpected line in .git/packed-refs: fatal: no such path 'a.txt' in HEAD\n",
      "error: bad graft data: fatal: not a git repository: x\nfatal: unable to read abc\n",
      "warning: ignoring broken ref refs/heads/x\n",
      "",
    ]
  ) {
    assert.equal(knownFailure({ stdout: "", stderr }, blame), undefined, stderr);
  }
});

Deno.test("knownFailure() takes the last line it knows: git's quoted lines come first, its reason last", () => {
  const stderr = "error: bad graft data: secret\nfatal: no such path 'a.txt' in HEAD\n";
  assert.equal(
    knownFailure({ stdout: "", stderr }, blame),
    'path "a.txt" is not a committed file at that revision',
  );
});

Deno.test("knownFailure() reads stdout only for git commit, and the pattern it names is the caller's", () => {
  const stdout = "On branch main\nnothing to commit, working tree clean\n";
  const commit = [arg.word("commit"), arg.operands("paths", ["a.txt"])];
  assert.equal(knownFailure({ stdout, stderr: "" }, commit), "the paths hold no change to commit");
  assert.equal(knownFailure({ stdout, stderr: "" }, [arg.word("show")]), undefined);
  const grep = [arg.word("grep"), arg.option("-e", "pattern", "a{1")];
  assert.equal(
    knownFailure({ stdout: "", stderr: "fatal: -e option, 'a{1': Unmatched \\{\n" }, grep),
    'pattern "a{1" is not a valid extended regular expression',
  );
});

Deno.test("knownFailure() says a run stopped at GIT_ALLOC_LIMIT in the server's words, naming the limit git runs under", () => {
  const log = [arg.word("log")];
  for (
    const stderr of [
      "fatal: attempting to allocate 92055022 over limit 67108864\n",
      // Reading a pack entry: git reports the entry as corrupt after the refused allocation.
      "error: attempting to allocate 104857601 over limit 67108864\nfatal: packed object 9193b8cf (stored in x.pack) is corrupt\n",
    ]
  ) {
    assert.equal(knownFailure({ stdout: "", stderr }, log), tooLargeWords(67108864), stderr);
  }
  // A line quoted after a prefix of git's own is not git saying it.
  assert.equal(
    knownFailure({ stdout: "", stderr: "warning: x: fatal: attempting to allocate 1 over limit 1\n" }, log),
    undefined,
  );
  assert.match(tooLargeWords(67108864), /more than 64 MiB at once/);
  assert.match(tooLargeWords(5 * 1024 * 1024), /more than 5 MiB at once/);
});

Deno.test("knownFailure() says a commit stopped by a merge, cherry-pick or rebase in progress in the server's words", () => {
  const commit = [arg.word("commit"), arg.operands("paths", ["a.txt"])];
  for (const state of ["merge", "cherry-pick", "rebase"]) {
    // What git 2.39 says when MERGE_HEAD or CHERRY_PICK_HEAD is left over and paths are named.
    const stderr = `fatal: cannot do a partial commit during a ${state}.\n`;
    assert.equal(
      knownFailure({ stdout: "", stderr }, commit),
      `the repository is in the middle of a ${state}, and git commits no chosen paths until it is finished or ` +
        "aborted outside this server",
    );
  }
});
