// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertCommitsToBranch, assertNoSkipWorktree, committedOutside, skipWorktreePaths } from "./commit_scope.ts";
import { fixture, refusal } from "./fixture.ts";

/**
 * Points the cache tree's node for `folder` (a direct child of the root) at
 * `tree`, and writes the index's checksum again: what a repository handed
 * over whole (a tarball, a shared folder) can hold.
 */
async function forgeCacheTree(gitDir: string, folder: string, tree: string): Promise<void> {
  const path = join(gitDir, "index");
  const bytes = await Deno.readFile(path);
  const body = bytes.subarray(0, bytes.length - 20);
  const view = new DataView(body.buffer, body.byteOffset);
  // The extensions follow the entries: find TREE by its signature and a size that ends within the body.
  let at = body.length;
  for (let i = 12; i + 8 <= body.length; i++) {
    if (body[i] === 0x54 && new TextDecoder().decode(body.subarray(i, i + 4)) === "TREE") {
      if (i + 8 + view.getUint32(i + 4) <= body.length) at = i;
    }
  }
  assert.ok(at < body.length, "the index has a cache tree");
  const end = at + 8 + view.getUint32(at + 4);
  let i = at + 8;
  let patched = false;
  while (i < end) {
    const nul = body.indexOf(0, i);
    const name = new TextDecoder().decode(body.subarray(i, nul));
    const newline = body.indexOf(0x0a, nul);
    const count = Number(new TextDecoder().decode(body.subarray(nul + 1, newline)).split(" ")[0]);
    i = newline + 1;
    if (count >= 0) {
      if (name === folder) {
        for (let k = 0; k < 20; k++) body[i + k] = parseInt(tree.slice(2 * k, 2 * k + 2), 16);
        patched = true;
      }
      i += 20;
    }
  }
  assert.ok(patched, `the cache tree has a valid node for ${folder}`);
  const sum = new Uint8Array(await crypto.subtle.digest("SHA-1", body));
  await Deno.writeFile(path, new Uint8Array([...body, ...sum]));
}

Deno.test("git_commit undoes a commit git filled with paths not named, from an index whose cache tree names another tree, and says which", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "a.txt": "a\n", "other/f": "good\n" });
    // A tree with other content, stored: other/f and other/g, EVIL.
    await Deno.writeTextFile(join(dir, "other", "f"), "EVIL\n");
    await Deno.writeTextFile(join(dir, "other", "g"), "EVIL\n");
    await f.git(dir, "add", "other");
    const evil = (await f.git(dir, "write-tree", "--prefix=other/")).trim();
    await Deno.writeTextFile(join(dir, "other", "f"), "good\n");
    await Deno.remove(join(dir, "other", "g"));
    // The index as HEAD has it, its cache tree filled from HEAD's trees, then the node for other/ forged.
    await f.git(dir, "read-tree", "HEAD");
    await f.git(dir, "update-index", "--refresh");
    await forgeCacheTree(join(dir, ".git"), "other", evil);
    const start = (await f.git(dir, "rev-parse", "HEAD")).trim();
    const mgr = f.manager({ w: dir });
    assert.equal(
      (await mgr.status("w")).text.trim(),
      "## main",
      "nothing shows: the forgery is in the cache tree only",
    );
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    await assert.rejects(
      mgr.commit("w", "m", ["a.txt"]),
      refusal("no-permission", committedOutside("w", ["other/f", "other/g"]).message),
    );
    assert.equal((await f.git(dir, "rev-parse", "HEAD")).trim(), start, "the commit was undone");
    assert.equal(await f.git(dir, "diff", "--cached", "--name-only"), "a.txt\n", "a.txt stays staged");
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:other/f"), "good\n");
    // The control: plain git, with the cache tree forged again, commits the other tree's files.
    await f.git(dir, "read-tree", "HEAD");
    await forgeCacheTree(join(dir, ".git"), "other", evil);
    await f.git(dir, "commit", "-q", "-m", "plain", "a.txt");
    assert.equal(
      await f.git(dir, "diff-tree", "-r", "--name-only", "--no-commit-id", "HEAD~1", "HEAD"),
      "a.txt\nother/f\nother/g\n",
      "the forged cache tree did not apply: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit refuses a folder whose index entries carry the skip-worktree bit, which git add would pass over, before anything is staged", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "d/x": "x1\n", "d/y": "y1\n" });
    await f.git(dir, "update-index", "--skip-worktree", "d/x");
    await Deno.writeTextFile(join(dir, "d", "x"), "X2\n");
    await Deno.writeTextFile(join(dir, "d", "y"), "y2\n");
    const mgr = f.manager({ w: dir });
    for (const paths of [["d"], ["d/x", "d/y"]]) {
      await assert.rejects(
        mgr.commit("w", "m", paths),
        refusal(
          "invalid-input",
          'Cannot commit in repo "w": its index marks "d/x" skip-worktree (a sparse checkout\'s), so git would leave ' +
            "the changes there out of the commit; name other paths, or clear the bit (git update-index " +
            "--no-skip-worktree)",
        ),
      );
    }
    assert.equal(await f.git(dir, "diff", "--cached", "--name-only"), "", "nothing was staged");
    // A path without the bit commits.
    await mgr.commit("w", "y", ["d/y"]);
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:d/y"), "y2\n");
    // The control: plain git commits the folder and leaves d/x out.
    await Deno.writeTextFile(join(dir, "d", "y"), "y3\n");
    await f.git(dir, "add", "d");
    await f.git(dir, "commit", "-q", "-m", "plain");
    assert.equal(
      await f.git(dir, "cat-file", "blob", "HEAD:d/x"),
      "x1\n",
      "the bit did not apply: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit refuses while HEAD leads through a symbolic ref to a tag, which a commit would move; a branch reached so commits", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "a.txt": "a\n" });
    await f.git(dir, "tag", "v1");
    await f.git(dir, "branch", "other");
    const tagged = (await f.git(dir, "rev-parse", "v1")).trim();
    const main = join(dir, ".git", "refs", "heads", "main");
    await Deno.writeTextFile(main, "ref: refs/tags/v1\n");
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    const mgr = f.manager({ w: dir });
    await assert.rejects(
      mgr.commit("w", "m", ["a.txt"]),
      refusal(
        "no-permission",
        'Cannot commit in repo "w": its HEAD leads to "refs/tags/v1", not a branch (refs/heads/…), and a commit would ' +
          "move that ref",
      ),
    );
    assert.equal((await f.git(dir, "rev-parse", "v1")).trim(), tagged);
    // Through a symbolic ref to another branch, the commit lands on that branch.
    await Deno.writeTextFile(main, "ref: refs/heads/other\n");
    const made = await mgr.commit("w", "m", ["a.txt"]);
    assert.equal((await f.git(dir, "rev-parse", "refs/heads/other")).trim(), made.commit);
    // The control: plain git moves the tag.
    await Deno.writeTextFile(main, "ref: refs/tags/v1\n");
    await Deno.writeTextFile(join(dir, "a.txt"), "a3\n");
    await f.git(dir, "commit", "-q", "-m", "plain", "a.txt");
    assert.notEqual(
      (await f.git(dir, "rev-parse", "v1")).trim(),
      tagged,
      "the tag did not move: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit's first commit in an empty repository is checked against its paths too", async () => {
  const f = await fixture();
  try {
    const dir = join(f.base, "wnew");
    await Deno.mkdir(join(dir, "d"), { recursive: true });
    await f.git(dir, "init", "-q", "-b", "main");
    await Deno.writeTextFile(join(dir, "d", "a.txt"), "a\n");
    await Deno.writeTextFile(join(dir, "b.txt"), "b\n");
    const mgr = f.manager({ wnew: dir });
    const made = await mgr.commit("wnew", "first", ["d", "b.txt"]);
    assert.equal(made.commit, (await f.git(dir, "rev-parse", "HEAD")).trim());
    assert.equal(await f.git(dir, "ls-tree", "-r", "--name-only", "HEAD"), "b.txt\nd/a.txt\n");
  } finally {
    await f.end();
  }
});

Deno.test("skipWorktreePaths() keeps the entries tagged S; assertNoSkipWorktree() names at most five; a detached HEAD commits, a remote-tracking ref does not", () => {
  assert.deepEqual(skipWorktreePaths(["H a", "S b c", "M d", "S e"]), ["b c", "e"]);
  assertNoSkipWorktree("w", []);
  assertCommitsToBranch("w", "");
  assert.throws(() => assertCommitsToBranch("w", "refs/remotes/origin/main"), /leads to "refs\/remotes\/origin\/main"/);
  assert.throws(
    () => assertNoSkipWorktree("w", ["1", "2", "3", "4", "5", "6", "7"]),
    /its index marks "1", "2", "3", "4", "5" and 2 more skip-worktree/,
  );
});
