// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// A `.git/index` written by hand, over real stdio against the server started
// with exactly the flags it prints: git reads an index without checking its
// names, so one listing `../outside/secret`, an absolute path or
// `.git/config` made git_grep, git_diff and git_status print those files.
// An index git would expand to gigabytes (version 4's names, a sparse
// index's folders), which no single allocation GIT_ALLOC_LIMIT sees. And a
// `.mailmap` hard-linked to an outside file, which git_blame applied.
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRefused, textOf } from "../served.ts";
import { writeCraftedIndex, writeExpandingIndex } from "./domain/fixture.ts";
import { SCRIPT } from "./_e2e.ts";
import { closeSharedServer, type HostileTree, plainGit, sharedServer } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tests make their repositories in one tree, each under its own names, behind one server
 * ({@linkcode sharedServer}); the last test closes it.
 */
const SHARED: Partial<Deno.TestDefinition> = { permissions: perms, sanitizeOps: false, sanitizeResources: false };
const inShared = sharedServer(SCRIPT);

/** Each crafted repository's name and the name its index lists beside README.md. */
function craftedNames(t: HostileTree): Record<string, string> {
  const outside = join(t.f.base, "outside");
  // "relative" and "absolute" name the secret.
  return {
    relative: "../outside/secret",
    missing: "../outside/missing",
    absolute: t.secret,
    absent: join(outside, "missing"),
    config: ".git/config",
  };
}

const indexNames = ["relative", "missing", "absolute", "absent", "config", "expanding", "sparse", "v4"];
const craftedIndexes = inShared(indexNames, async (t) => {
  const crafted = craftedNames(t);
  for (const [name, listed] of Object.entries(crafted)) {
    const dir = await t.f.repo(name, { "README.md": "# app\n" });
    await t.f.git(dir, "config", "forge.canary", t.canary);
    const empty = (await t.f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    await writeCraftedIndex(join(dir, ".git"), empty, ["README.md", listed]);
  }
  // 12,000 entries, each name the previous one plus a byte: a 780 KB index holding 72 MB of names.
  const expanding = await t.f.repo("expanding", { "README.md": "# app\n" });
  const blob = (await t.f.git(expanding, "hash-object", "-w", "/dev/null")).trim();
  await writeExpandingIndex(join(expanding, ".git"), blob, 12_000);
  const sparse = await t.f.repo("sparse", { "in/a.txt": "a\n", "out/b.txt": "b\n" });
  await t.f.git(sparse, "sparse-checkout", "set", "--cone", "--sparse-index", "in");
  const v4 = await t.f.repo("v4", { "README.md": "# app\n", "src/a.ts": "a\n", "src/b.ts": "b\n" });
  await t.f.git(v4, "update-index", "--index-version", "4");
}, true);

Deno.test({
  name:
    "an index listing a file outside the work tree or in .git, or one git would expand past alloc_limit_mib (version 4 names, a sparse index), is refused by every tool that reads it, the file never shown, in the same words whether it exists",
  ...SHARED,
  async fn() {
    const { t, served } = await craftedIndexes();
    // Each repository's index lists README.md and one crafted name.
    const crafted = craftedNames(t);
    const v4 = join(t.f.base, "v4");
    for (const name of ["relative", "absolute", "config"]) {
      const leak = await plainGit(join(t.f.base, name), "grep", "-e", t.canary);
      assert.ok(leak.includes(t.canary), `plain git does not read ${name}'s file: this test proves nothing`);
    }
    const reads = (repo: string): [string, Record<string, unknown>][] => [
      ["git_grep", { repo, pattern: "CANARY" }],
      ["git_diff", { repo }],
      ["git_diff", { repo, from: "HEAD" }],
      ["git_status", { repo }],
      ["git_blame", { repo, path: "README.md" }],
      ["git_commit", { repo, message: "m", paths: ["README.md"] }],
    ];
    const words = async (repo: string, name: string, args: Record<string, unknown>) => {
      const result = await served.call(name, args);
      const text = textOf(result);
      assert.ok(!text.includes(t.canary), `${repo} ${name}: ${text}`);
      assertRefused(result, /its index lists/, `${repo} ${name}`);
      return text.replaceAll(JSON.stringify(crafted[repo]), "<name>").replaceAll(JSON.stringify(repo), "<repo>");
    };
    for (const [present, absent] of [["relative", "missing"], ["absolute", "absent"]]) {
      const [withFile, without] = [reads(present), reads(absent)];
      for (let i = 0; i < withFile.length; i++) {
        const [name, args] = withFile[i];
        assert.equal(await words(present, name, args), await words(absent, name, without[i][1]), name);
      }
    }
    for (const [name, args] of reads("config")) {
      assert.match(await words("config", name, args), /a name that has a "\.git" part/);
    }
    // Read before git reads it: refused by the same tools, in words that say what to do.
    const expands: [string, RegExp][] = [
      ["expanding", /holds 12000 entries whose names, expanded, take git over 64 MiB of memory by entry 11\d{3} \(/],
      ["sparse", /holds a folder entry .*`git sparse-checkout set --no-sparse-index`/],
    ];
    for (const [repo, why] of expands) {
      const words = new RegExp(`^Cannot read the index of repo "${repo}": its index ${why.source}`);
      for (const [name, args] of reads(repo)) await served.refused(name, args, words);
    }
    assert.equal(await served.ok("git_status", { repo: "v4" }), "## main\n");
    await Deno.writeTextFile(join(v4, "src", "a.ts"), "changed\n");
    assert.match(await served.ok("git_diff", { repo: "v4" }), /^\+changed$/m);
    assert.match(await served.ok("git_grep", { repo: "v4", pattern: "changed" }), /^src\/a\.ts:1:changed$/m);
    // The tools that read no index still serve these repositories; nothing was committed.
    for (const repo of ["relative", "config"]) {
      assert.match(await served.ok("git_log", { repo, max_count: 1 }), /first/);
      assert.equal(await served.ok("git_show", { repo, rev: "HEAD", path: "README.md" }), "# app\n");
      assert.equal(await served.ok("git_grep", { repo, pattern: "app", ref: "HEAD" }), "HEAD:README.md:1:# app\n");
      assert.equal((await t.f.git(join(t.f.base, repo), "rev-list", "--count", "HEAD")).trim(), "1");
    }
  },
});

const linkedMailmap = inShared(["mailmapped"], async (t) => {
  const app = await t.f.repo("mailmapped", { "README.md": "# app\n" });
  // An outside file of its own: the secret stays with one name for the test above.
  const outside = join(t.f.base, "outside", "mailmap");
  await Deno.writeTextFile(outside, `Name ${t.canary} <test@example.com>\n`);
  await Deno.link(outside, join(app, ".mailmap"));
});

Deno.test({
  name: "a .mailmap hard-linked to an outside file is not applied by git_blame, with or without a ref",
  ...SHARED,
  async fn() {
    const { t, served } = await linkedMailmap();
    const repo = "mailmapped";
    const app = join(t.f.base, repo);
    assert.ok((await plainGit(app, "blame", "README.md")).includes(t.canary), "plain git does not map: proves nothing");
    for (const args of [{ repo, path: "README.md" }, { repo, path: "README.md", ref: "HEAD" }]) {
      const text = await served.refused("git_blame", args, /\.mailmap, and it has 2 hard links/);
      assert.ok(!text.includes(t.canary));
    }
    assert.match(await served.ok("git_log", { repo }), /Author: Test <test@example\.com>/);
  },
});

closeSharedServer(linkedMailmap, SHARED);
