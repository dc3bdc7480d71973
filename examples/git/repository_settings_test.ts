// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// What a repository's own history, index and config can make git spend or
// show, attacked over real stdio against the server started with exactly the
// flags it prints: merges, upstream counts, message searches, and the config
// that changes how answers look.
import assert from "node:assert/strict";
import { join } from "node:path";
import { appendConfig } from "./domain/fixture.ts";
import { SCRIPT } from "./_e2e.ts";
import { closeSharedServer, plainGit, sharedServer } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tests make their repositories in one tree, each under its own name, behind one server
 * ({@linkcode sharedServer}); the last test closes it.
 */
const SHARED: Partial<Deno.TestDefinition> = { permissions: perms, sanitizeOps: false, sanitizeResources: false };
const inShared = sharedServer(SCRIPT);

const mergedHistory = inShared(["merged"], async (t) => {
  const app = await t.f.repo("merged", { "f.txt": "base\n" });
  await t.f.git(app, "checkout", "-q", "-b", "side");
  await Deno.writeTextFile(join(app, "f.txt"), "side\n");
  await t.f.git(app, "commit", "-q", "-a", "-m", "side");
  await t.f.git(app, "checkout", "-q", "main");
  await Deno.writeTextFile(join(app, "f.txt"), "main\n");
  await t.f.git(app, "commit", "-q", "-a", "-m", "main");
  // A merge resolved by hand (its result differs from both parents), then a conflicted one left in the index.
  await mergeConflicting(app, "side");
  await Deno.writeTextFile(join(app, "f.txt"), "resolved\n");
  await t.f.git(app, "commit", "-q", "-a", "-m", "merged");
  await t.f.git(app, "checkout", "-q", "-b", "other", "main~1");
  await Deno.writeTextFile(join(app, "f.txt"), "other\n");
  await t.f.git(app, "commit", "-q", "-a", "-m", "other");
  await mergeConflicting(app, "side");
  // An upstream the status would count commits against.
  await t.f.git(app, "config", "branch.other.remote", ".");
  await t.f.git(app, "config", "branch.other.merge", "refs/heads/main");
});

Deno.test({
  name:
    "a merge is shown against its first parent and an unmerged path against ours, never as a combined diff; status counts no upstream; ^{/…} is refused",
  ...SHARED,
  async fn() {
    const { t, served } = await mergedHistory();
    const repo = "merged";
    const app = join(t.f.base, repo);
    assert.match(await plainGit(app, "show", "main"), /^diff --cc f\.txt$/m, "plain git shows no combined diff");
    assert.match(await plainGit(app, "diff"), /^diff --cc f\.txt$/m, "plain git shows no combined diff");
    assert.match(await plainGit(app, "status", "--porcelain=v1", "--branch"), /\[ahead \d+, behind \d+\]/);
    const merge = await served.ok("git_show", { repo, rev: "main" });
    assert.doesNotMatch(merge, /^diff --cc/m);
    assert.match(merge, /^diff --git a\/f\.txt b\/f\.txt$/m, merge);
    const unmerged = await served.ok("git_diff", { repo });
    assert.doesNotMatch(unmerged, /^diff --cc/m, unmerged);
    const status = await served.ok("git_status", { repo });
    assert.doesNotMatch(status, /ahead|behind/, status);
    assert.match(status, /^## other\.\.\.main/m, status);
    await served.refused("git_log", { repo, ref: "HEAD^{/side}" }, /may not search commit messages/);
  },
});

/** The author of the repository's last commit, as git wrote it before the config changed. */
let author = "";
const answerSettings = inShared(["looks"], async (t) => {
  // n.txt: two changes 11 lines apart, two hunks unless context or inter-hunk context grows. s.txt: a block whose
  // place git's indent heuristic chooses, after a blank context line.
  const numbers = Array.from({ length: 30 }, (_, i) => `${i + 1}\n`);
  const app = await t.f.repo("looks", { "f.txt": "a needle\n", "n.txt": numbers.join(""), "s.txt": "1\na\n\nb\n2\n" });
  await Deno.writeTextFile(join(app, ".mailmap"), "Someone Else <else@example.com> <test@example.com>\n");
  await Deno.writeTextFile(join(app, "f.txt"), "a needle\nmore\n");
  await Deno.writeTextFile(
    join(app, "n.txt"),
    numbers.map((n) => n === "5\n" || n === "16\n" ? `x${n}` : n).join(""),
  );
  await Deno.writeTextFile(join(app, "s.txt"), "1\na\n\nb\na\n\nb\n2\n");
  await t.f.git(app, "commit", "-q", "-a", "-m", "second");
  author = (await t.f.git(app, "log", "-1", "--format=%an <%ae>")).trim();
  await appendConfig(app, [
    ["log.abbrevCommit", "true"],
    ["log.decorate", "short"],
    ["i18n.logOutputEncoding", "UTF-16LE"],
    ["grep.column", "true"],
    ["diff.noprefix", "true"],
    ["core.deltaBaseCacheLimit", "10g"],
    ["blame.coloring", "highlightRecent"],
    ["blame.showEmail", "true"],
    ["blame.blankBoundary", "true"],
    ["blame.showRoot", "true"],
    ["log.showRoot", "false"],
    ["core.abbrev", "4"],
    ["diff.context", "0"],
    ["diff.interHunkContext", "10"],
    ["diff.indentHeuristic", "false"],
    ["diff.suppressBlankEmpty", "true"],
  ]);
  await Deno.writeTextFile(
    join(app, ".mailmap"),
    `Mapped Name <mapped@example.com> ${author.replace(/^.*</, "<")}\n`,
  );
});

Deno.test({
  name:
    "a repository's config cannot change how answers look: full ids, no ref names, authors as committed, UTF-8 messages, grep lines without a column, a/ and b/ prefixes, blame's lines and ids, a root commit's diff, hunks as git shapes them",
  ...SHARED,
  async fn() {
    const { served } = await answerSettings();
    const repo = "looks";
    const log = await served.ok("git_log", { repo });
    assert.match(log, /^commit [0-9a-f]{40}$/m, log);
    assert.doesNotMatch(log, /\(HEAD|main\)/, log);
    assert.match(log, new RegExp(`^Author: ${author.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`, "m"), log);
    assert.match(log, /^ {4}second$/m, log);
    assert.doesNotMatch(log, /Mapped Name/);
    const grep = await served.ok("git_grep", { repo, pattern: "needle" });
    assert.match(grep, /^f\.txt:1:a needle$/m, JSON.stringify(grep));
    const show = await served.ok("git_show", { repo, rev: "HEAD" });
    assert.match(show, /^diff --git a\/f\.txt b\/f\.txt$/m, show);
    assert.doesNotMatch(show, /Mapped Name/);
    // Ids at git's length, three lines of context, two hunks, the indent heuristic's block, " " for a blank line.
    assert.match(show, /^index [0-9a-f]{7}\.\.[0-9a-f]{7} 100644$/m, show);
    assert.match(show, /^@@ -2,7 \+2,7 @@\n 2\n 3\n 4\n-5\n\+x5\n 6\n 7\n 8\n@@ -13,7 \+13,7 @@$/m, show);
    assert.match(show, /^@@ -1,5 \+1,8 @@\n 1\n a\n \n\+b\n\+a\n\+\n b\n 2\n/m, show);
    const root = await served.ok("git_show", { repo, rev: "HEAD~1" });
    assert.match(root, /^diff --git a\/f\.txt b\/f\.txt\nnew file mode 100644\n/m, root);
    // The root commit as a boundary (`^` and seven hex digits), the newer one in eight, no colour, names not emails.
    const blame = await served.ok("git_blame", { repo, path: "f.txt" });
    assert.match(
      blame,
      /^\^[0-9a-f]{7} \([^<]+ \d{4}-\d\d-\d\dT[^)]+ 1\) a needle\n[0-9a-f]{8} \([^<]+ \d{4}-/,
      blame,
    );
    assert.ok(!blame.includes("\u001b") && !blame.includes("<"), JSON.stringify(blame));
  },
});

closeSharedServer(answerSettings, SHARED);

/** Merges `branch` into the current one, which conflicts: git exits 1 and leaves stages 1-3 in the index. */
async function mergeConflicting(repo: string, branch: string): Promise<void> {
  const env = {
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_CONFIG_NOSYSTEM: "1",
    PATH: "/usr/bin:/bin",
    GIT_AUTHOR_NAME: "Test",
    GIT_AUTHOR_EMAIL: "test@example.com",
    GIT_COMMITTER_NAME: "Test",
    GIT_COMMITTER_EMAIL: "test@example.com",
  };
  const out = await new Deno.Command("/usr/bin/git", { args: ["merge", "-q", branch], cwd: repo, env, clearEnv: true })
    .output();
  assert.equal(out.code, 1, new TextDecoder().decode(out.stderr));
}
