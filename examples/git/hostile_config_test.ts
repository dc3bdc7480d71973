// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Settings a repository's own config holds that would make git spend the
// host's memory or read a file outside the jail, each attacked over real
// stdio against the server started with exactly the flags it prints.
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveUnderPrintedFlags, textOf } from "../served.ts";
import { SCRIPT } from "./_e2e.ts";
import { closeSharedServer, hostileTree, plainGit, sharedServer } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tests under the default config make their repositories in one tree, each under its own name, behind one
 * server ({@linkcode sharedServer}); the last test closes it.
 */
const SHARED: Partial<Deno.TestDefinition> = { permissions: perms, sanitizeOps: false, sanitizeResources: false };
const inShared = sharedServer(SCRIPT);

const bigFiles = inShared(["big"], async (t) => {
  const app = await t.f.repo("big", { "README.md": "# app\n", ".gitattributes": "driven.txt diff=plain\n" });
  // Just over 1 MiB of empty lines: git's line diff would hold some 45 bytes for each.
  const lines = "\n".repeat(1024 * 1024 + 1);
  await Deno.writeTextFile(join(app, "big.txt"), lines);
  await Deno.writeTextFile(join(app, "driven.txt"), lines);
  await Deno.writeTextFile(join(app, "small.txt"), "one\ntwo\n");
  await t.f.git(app, "add", "big.txt", "driven.txt", "small.txt");
  await t.f.git(app, "commit", "-q", "-m", "big files");
  await Deno.writeTextFile(join(app, "big.txt"), lines + "more\n");
  await t.f.git(app, "config", "core.bigFileThreshold", "512m");
  await t.f.git(app, "config", "diff.plain.binary", "false");
});

Deno.test({
  name:
    "a file over 1 MiB is not line-diffed by git_show and git_diff, even when the repository's config raises core.bigFileThreshold or marks its driver text",
  ...SHARED,
  async fn() {
    const { t, served } = await bigFiles();
    const repo = "big";
    const app = join(t.f.base, repo);
    // Plain git, under the repository's config, diffs both line by line: what an unguarded server would do.
    const plain = await plainGit(app, "show", "HEAD");
    assert.match(plain, /^\+\n\+\n/m, "plain git does not line-diff the big files: this test proves nothing");
    assert.doesNotMatch(plain, /^Binary files/m);
    for (
      const [name, args] of [
        ["git_show", { repo, rev: "HEAD" }],
        ["git_diff", { repo, from: "HEAD~1", to: "HEAD" }],
      ] as [string, Record<string, unknown>][]
    ) {
      const text = await served.ok(name, args);
      // Over 1 MiB: left out before git runs, whatever the threshold or driver says.
      assert.match(text, /^Not diffed: "big\.txt" is over/m, `${name}: ${text.slice(0, 400)}`);
      assert.match(text, /^Not diffed: "driven\.txt" is over/m, name);
      assert.doesNotMatch(text, /^\+$/m, `${name} diffed an empty line`);
      assert.match(text, /^\+one\n\+two$/m, `${name}: a small file is still diffed as text`);
    }
    // The work tree against the index reads big.txt from disk: the same threshold applies.
    assert.match(await served.ok("git_diff", { repo }), /^Not diffed: "big\.txt" is over/m);
  },
});

const outsideLines = inShared(["ordered"], async (t) => {
  const app = await t.f.repo("ordered", { "README.md": "# app\n" });
  await Deno.writeTextFile(join(app, "a.txt"), "a\n");
  await Deno.writeTextFile(join(app, "b.txt"), "b\n");
  await t.f.git(app, "add", "a.txt", "b.txt");
  await t.f.git(app, "commit", "-q", "-m", "two files");
  await Deno.writeTextFile(join(app, "guess"), "untracked\n");
  // Each line of the outside file would hide an untracked name (an oracle for its lines) or move a file first.
  const outside = join(t.f.base, "outside", "lines");
  await Deno.writeTextFile(outside, "b.txt\nguess\n");
  await t.f.git(app, "config", "core.excludesFile", outside);
  await t.f.git(app, "config", "diff.orderFile", outside);
}, true);

Deno.test({
  name:
    "a repository's core.excludesFile and diff.orderFile naming an outside file have no effect: git_status lists, git_commit takes and git_show and git_diff order files regardless of its lines",
  ...SHARED,
  async fn() {
    const { t, served } = await outsideLines();
    const repo = "ordered";
    const app = join(t.f.base, repo);
    const order = (text: string) => [...text.matchAll(/^diff --git a\/(\S+)/gm)].map((m) => m[1]);
    assert.doesNotMatch(
      await plainGit(app, "status", "--porcelain"),
      /guess/,
      "plain git shows it: this test proves nothing",
    );
    assert.deepEqual(order(await plainGit(app, "show", "HEAD")), ["b.txt", "a.txt"], "plain git does not reorder");
    assert.match(await served.ok("git_status", { repo }), /^\?\? guess$/m);
    assert.deepEqual(order(await served.ok("git_show", { repo, rev: "HEAD" })), ["a.txt", "b.txt"]);
    assert.deepEqual(order(await served.ok("git_diff", { repo, from: "HEAD~1", to: "HEAD" })), [
      "a.txt",
      "b.txt",
    ]);
    assert.match(await served.ok("git_commit", { repo, message: "m", paths: ["guess"] }), /"guess"/);
  },
});

const forcedDiff = inShared(["forced"], async (t) => {
  // `* diff` is git's built-in text driver: no config can mark it binary, so git line-diffs any size.
  const app = await t.f.repo("forced", { "README.md": "# app\n", ".gitattributes": "* diff\n" });
  const lines = "\n".repeat(1024 * 1024 + 1);
  await Deno.writeTextFile(join(app, "big.txt"), lines);
  await Deno.writeTextFile(join(app, "small.txt"), "one\ntwo\n");
  await t.f.git(app, "add", "big.txt", "small.txt");
  await t.f.git(app, "commit", "-q", "-m", "big and small");
  await Deno.writeTextFile(join(app, "big.txt"), lines + "more\n");
  await t.f.git(app, "commit", "-q", "-am", "only big");
  await Deno.writeTextFile(join(app, "big.txt"), lines + "even more\n");
  await Deno.writeTextFile(join(app, "small.txt"), "one\nthree\n");
});

Deno.test({
  name:
    "a file over 1 MiB is left out of git_show and git_diff and named, even when .gitattributes forces a line diff, while a small file is still diffed",
  ...SHARED,
  async fn() {
    const { t, served } = await forcedDiff();
    const repo = "forced";
    const app = join(t.f.base, repo);
    const plain = await plainGit(app, "-c", "core.bigFileThreshold=1m", "show", "HEAD~1");
    assert.match(plain, /^\+\n\+\n/m, "plain git does not line-diff the big file: this test proves nothing");
    const leftOut = /^Not diffed: "big\.txt" is over 1048576 bytes, the most this server lets git read of one file/m;
    for (
      const [name, args, small] of [
        ["git_show", { repo, rev: "HEAD~1" }, /^\+one\n\+two$/m],
        ["git_diff", { repo, from: "HEAD~2", to: "HEAD~1" }, /^\+one\n\+two$/m],
        ["git_diff", { repo }, /^-two\n\+three$/m],
        ["git_diff", { repo, from: "HEAD" }, /^-two\n\+three$/m],
      ] as [string, Record<string, unknown>, RegExp][]
    ) {
      const text = await served.ok(name, args);
      const what = `${name} ${JSON.stringify(args)}: ${text.slice(0, 300)}`;
      assert.match(text, leftOut, what);
      assert.doesNotMatch(text, /^\+$/m, `${what}: an empty line was diffed`);
      assert.doesNotMatch(text, /big\.txt differ|b\/big\.txt/, `${what}: git read big.txt`);
      assert.match(text, small, `${what}: the small file is not diffed`);
    }
    // Every changed file left out: the commit alone, not a diff of the whole tree.
    const only = await served.ok("git_show", { repo, rev: "HEAD" });
    assert.match(only, /^Commit: /m);
    assert.match(only, leftOut);
    assert.doesNotMatch(only, /^diff --git/m);
  },
});

const many = Array.from({ length: 51 }, (_, i) => `f${i}.txt`);
const renames = inShared(["renamed"], async (t) => {
  const app = await t.f.repo("renamed", { "a.txt": "alpha\nbeta\n", "moved.txt": "moved\n" });
  for (const name of many) await Deno.writeTextFile(join(app, name), `file ${name}\n`);
  await t.f.git(app, "add", ...many);
  await t.f.git(app, "commit", "-q", "-m", "51 files");
  // 51 renames: 102 added or deleted files, over the cap.
  // Moved on disk and staged by one `git add -A` (not 51 runs of `git mv`): the same commit, 51 files deleted and
  // 51 added.
  for (const name of many) await Deno.rename(join(app, name), join(app, `renamed-${name}`));
  await t.f.git(app, "add", "-A");
  await t.f.git(app, "commit", "-q", "-m", "rename all");
  // One rename, and a copy of a file the same commit modifies.
  await t.f.git(app, "mv", "moved.txt", "moved-again.txt");
  await Deno.writeTextFile(join(app, "a.txt"), "alpha\nbeta\ngamma\n");
  await Deno.writeTextFile(join(app, "copy.txt"), "alpha\nbeta\ngamma\n");
  await t.f.git(app, "add", "a.txt", "copy.txt");
  await t.f.git(app, "commit", "-q", "-m", "one rename and a copy");
  await t.f.git(app, "mv", "moved-again.txt", "moved-thrice.txt");
  await t.f.git(app, "config", "diff.renames", "copies");
  await t.f.git(app, "config", "status.renames", "true");
  await t.f.git(app, "config", "log.follow", "true");
});

Deno.test({
  name:
    "rename detection, which reads each candidate whole, runs only in git_show and git_diff and over at most 100 added or deleted files; a repository's config cannot turn on copies, status renames or log.follow",
  ...SHARED,
  async fn() {
    const { t, served } = await renames();
    const repo = "renamed";
    const app = join(t.f.base, repo);
    const plain = await plainGit(app, "show", "HEAD");
    assert.match(plain, /^copy from a\.txt$/m, "plain git finds no copy: this test proves nothing");
    assert.match(await plainGit(app, "status", "--porcelain"), /^R /m, "plain git status finds no rename");
    const one = await served.ok("git_show", { repo, rev: "HEAD" });
    assert.match(one, /^rename from moved\.txt$/m, "a rename under the cap is found");
    assert.doesNotMatch(one, /^copy from/m, "the repository's diff.renames=copies was followed");
    assert.doesNotMatch(one, /Renames not looked for/);
    for (
      const [name, args] of [
        ["git_show", { repo, rev: "HEAD~1" }],
        ["git_diff", { repo, from: "HEAD~2", to: "HEAD~1" }],
      ] as [string, Record<string, unknown>][]
    ) {
      const text = await served.ok(name, args);
      assert.match(text, /^Renames not looked for: 102 files are added or deleted, over the 100 /m, name);
      assert.doesNotMatch(text, /^rename from/m, `${name} looked for renames among 102 files`);
      assert.match(text, /^deleted file mode .*\n(.*\n)*new file mode /m, name);
    }
    const status = await served.ok("git_status", { repo });
    assert.match(status, /^D {2}moved-again\.txt$/m, status);
    assert.match(status, /^A {2}moved-thrice\.txt$/m, status);
    await t.f.git(app, "commit", "-q", "-m", "thrice");
    const log = await served.ok("git_log", { repo, path: "moved-thrice.txt" });
    assert.equal(log.match(/^commit /gm)?.length, 1, `git_log followed the renames: ${log}`);
  },
});

const blameHistory = inShared(["blamed"], async (t) => {
  const app = await t.f.repo("blamed", { "small.txt": "one\ntwo\n" });
  const lines = "\n".repeat(1024 * 1024 + 1);
  await Deno.writeTextFile(join(app, "shrunk.txt"), lines);
  await Deno.writeTextFile(join(app, "grown.txt"), "small\n");
  await t.f.git(app, "add", "shrunk.txt", "grown.txt");
  await t.f.git(app, "commit", "-q", "-m", "one big, one small");
  // Small at HEAD, over 1 MiB one commit before: blame would read that version whole.
  await Deno.writeTextFile(join(app, "shrunk.txt"), "now small\n");
  await t.f.git(app, "commit", "-q", "-am", "shrink");
  // Small in every commit, over 1 MiB in the work tree.
  await Deno.writeTextFile(join(app, "grown.txt"), lines);
});

Deno.test({
  name:
    "git_blame refuses a file with a version over 1 MiB, in its history or in the work tree, naming it, and still blames a small file",
  ...SHARED,
  async fn() {
    const { t, served } = await blameHistory();
    const repo = "blamed";
    const app = join(t.f.base, repo);
    assert.match(await plainGit(app, "blame", "HEAD", "--", "shrunk.txt"), /now small/, "plain git cannot blame it");
    const over = /^Cannot blame "(shrunk|grown)\.txt" in repo "blamed": a version of it is over 1048576 bytes/;
    await served.refused("git_blame", { repo, path: "shrunk.txt", ref: "HEAD" }, over);
    await served.refused("git_blame", { repo, path: "shrunk.txt" }, over);
    await served.refused("git_blame", { repo, path: "grown.txt" }, over);
    assert.match(await served.ok("git_blame", { repo, path: "grown.txt", ref: "HEAD" }), /\) small$/m);
    assert.match(await served.ok("git_blame", { repo, path: "small.txt" }), /\) two$/m);
  },
});

const bigInRevision = inShared(["grepped"], async (t) => {
  const app = await t.f.repo("grepped", { "top.txt": "needle at the top\n" });
  await Deno.mkdir(join(app, "sub"));
  await Deno.writeTextFile(join(app, "sub", "big file.txt"), "needle\n".repeat(160_000));
  await Deno.writeTextFile(join(app, "sub", "small.txt"), "a needle\n");
  await t.f.git(app, "add", "sub");
  await t.f.git(app, "commit", "-q", "-m", "big and small");
});

Deno.test({
  name:
    "git_grep of a revision leaves out a file over 1 MiB and names it, with or without a path, and still searches the small files",
  ...SHARED,
  async fn() {
    const { t, served } = await bigInRevision();
    const repo = "grepped";
    const app = join(t.f.base, repo);
    assert.match(await plainGit(app, "grep", "needle", "HEAD"), /big file\.txt:needle/, "plain git skips it");
    for (const args of [{}, { path: "sub" }]) {
      const text = await served.ok("git_grep", { repo, pattern: "needle", ref: "HEAD", ...args });
      const what = `${JSON.stringify(args)}: ${text.slice(0, 300)}`;
      assert.match(text, /^HEAD:sub\/small\.txt:1:a needle$/m, what);
      assert.doesNotMatch(text, /big file\.txt:\d/, what);
      assert.match(text, /^Not searched: "sub\/big file\.txt" is over 1048576 bytes/m, what);
    }
    assert.match(
      await served.ok("git_grep", { repo, pattern: "needle", ref: "HEAD" }),
      /^HEAD:top\.txt:1:needle at the top$/m,
    );
  },
});

closeSharedServer(bigInRevision, SHARED);

Deno.test({
  name:
    "an object git would read whole past alloc_limit_mib (a commit message, a file stored as a delta) fails the call in the server's words, git_grep of the work tree leaves such a file out and names it, and a repository's diff.algorithm cannot push a diff the server allows past it",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    // The limit at 8 MiB and the objects just over it: the same runs as at the default 64 MiB, an eighth the bytes.
    const over = /more than 8 MiB at once, the most this server lets it/;
    const mib = 1024 * 1024;
    const app = await t.f.repo("app", {
      "README.md": "# app\n",
      "small.txt": "a needle\n",
      ".gitattributes": "* diff\n",
    });
    // 9 MiB of empty lines: a few tens of KB stored, read whole by git. One version is stored as a delta of the
    // other by `repack -f`; the work tree keeps the second.
    const lines = new Uint8Array(9 * mib + 2).fill(0x0a);
    for (const end of ["a", "b"]) {
      lines[lines.length - 2] = end.charCodeAt(0);
      await Deno.writeFile(join(app, "lines.txt"), lines);
      await t.f.git(app, "add", "lines.txt");
      await t.f.git(app, "commit", "-q", "-m", end);
    }
    await t.f.git(app, "repack", "-a", "-d", "-f", "-q");
    const pack = await t.f.git(app, "verify-pack", "-v", ...(await packIndexes(app)));
    assert.match(pack, /^[0-9a-f]{40} blob +\d+ \d+ \d+ 1 [0-9a-f]{40}$/m, "no version is stored as a delta");
    // 200,000 empty lines, one changed: Myers' table takes 6.4 MB, under the limit; patience's three times that.
    await Deno.writeTextFile(join(app, "e.txt"), "\n".repeat(200_000));
    await t.f.git(app, "add", "e.txt");
    await t.f.git(app, "commit", "-q", "-m", "empty lines");
    await Deno.writeTextFile(join(app, "e.txt"), "\n".repeat(100_000) + "x\n" + "\n".repeat(99_998));
    await t.f.git(app, "commit", "-q", "-a", "-m", "one changed");
    await t.f.git(app, "config", "diff.algorithm", "patience");
    // A commit whose message is 9 MiB, tagged beside the branch.
    const message = join(t.f.base, "message");
    await Deno.writeFile(message, lines);
    const tree = (await t.f.git(app, "rev-parse", "HEAD^{tree}")).trim();
    const bomb = (await t.f.git(app, "commit-tree", tree, "-p", "HEAD", "-F", message)).trim();
    await t.f.git(app, "tag", "bomb", bomb);
    assert.ok(Number(await t.f.git(app, "cat-file", "-s", "bomb")) > 8 * mib);
    const served = await serveUnderPrintedFlags(
      SCRIPT,
      await t.config({ repos: [{ name: "app", path: "app" }], alloc_limit_mib: 8 }),
    );
    try {
      await served.refused("git_log", { repo: "app", ref: "bomb" }, over);
      await served.refused("git_show", { repo: "app", rev: "bomb" }, over);
      // The whole-stored version streams (cut at the output cap); the delta-stored one is refused.
      const shown: boolean[] = [];
      for (const rev of ["HEAD~2", "HEAD~3"]) {
        const result = await served.call("git_show", { repo: "app", rev, path: "lines.txt" });
        if (result.isError === true) assert.match(textOf(result), over, rev);
        else {assert.match(
            (result.content[1] as { text: string }).text,
            /^\[truncated: showed the first \d+ bytes\]$/,
            rev,
          );}
        shown.push(result.isError !== true);
      }
      assert.deepEqual(shown.toSorted(), [false, true], "one version streams, the delta-stored one is refused");
      // grep of the work tree reads lines.txt whole from disk: past the limit it is left out and named.
      const grep = await served.ok("git_grep", { repo: "app", pattern: "needle" });
      assert.match(grep, /^small\.txt:1:a needle$/m);
      assert.match(grep, /^Not searched: "lines\.txt" is over 1048576 bytes/m);
      // The diff the server allows is still made, under the pinned algorithm; the history beside the bomb is served.
      assert.match(await served.ok("git_show", { repo: "app", rev: "HEAD" }), /^\+x$/m);
      assert.match(await served.ok("git_log", { repo: "app" }), /^ +one changed$/m);
    } finally {
      await served.server.close();
      await t.f.end();
    }
  },
});

/** The pack index files of a repository, for `git verify-pack`. */
async function packIndexes(repo: string): Promise<string[]> {
  const dir = join(repo, ".git", "objects", "pack");
  const names: string[] = [];
  for await (const entry of Deno.readDir(dir)) if (entry.name.endsWith(".idx")) names.push(join(dir, entry.name));
  return names;
}
