// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
// Repositories whose own configuration names programs: every key below makes
// a plain git run a script that leaves a marker file. No tool may ever run one.
import assert from "node:assert/strict";
import { join } from "node:path";
import { appendConfig, type Fixture, fixture } from "./fixture.ts";
import type { Manager } from "./manager.ts";
import { gitEnv, PINNED_CONFIG } from "./hardening.ts";

const PROGRAMS = [
  "fsmonitor",
  "diff-external",
  "pager",
  "filter-clean",
  "filter-smudge",
  "filter-process",
  "textconv",
  "diff-command",
  "merge-driver",
  "ssh",
  "pack-objects-hook",
  "gpg",
  "editor",
  "credential",
  "askpass",
  "alternate-refs",
];
const HOOKS = [
  "pre-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "post-index-change",
  "reference-transaction",
  "pre-auto-gc",
  "post-checkout",
  "fsmonitor-watchman",
];

/** Writes one marker script per program and hook; returns the markers folder. */
async function scripts(f: Fixture): Promise<{ bin: string; hooks: string; markers: string }> {
  const [bin, hooks, markers] = ["bin", "hooks", "markers"].map((d) => join(f.base, d));
  for (const dir of [bin, hooks, markers]) await Deno.mkdir(dir, { recursive: true });
  const write = (path: string, name: string) =>
    Deno.writeTextFile(path, `#!/bin/sh\ntouch '${markers}/${name}'\ncat "$@" 2>/dev/null\n`, { mode: 0o755 });
  for (const name of PROGRAMS) await write(join(bin, name), name);
  for (const name of HOOKS) await write(join(hooks, name), `hook-${name}`);
  return { bin, hooks, markers };
}

/** Makes a repository whose config names every program (filters only when `filters`). */
async function hostile(f: Fixture, name: string, filters: boolean): Promise<string> {
  const { bin, hooks } = await scripts(f);
  const outside = join(f.base, "outside");
  await Deno.mkdir(outside, { recursive: true });
  const dir = await f.repo(name, {
    "a.txt": "one\n",
    "b.txt": "bee\n",
    ".gitattributes": "* filter=x diff=x merge=x\n",
  });
  // A commit with a signature header: showing it with log.showSignature would run gpg.program.
  const raw = await f.git(dir, "cat-file", "commit", "HEAD");
  const signed = raw.replace(
    /^(committer .*)$/m,
    "$1\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n AAAA\n -----END PGP SIGNATURE-----",
  );
  await Deno.writeTextFile(join(f.base, `${name}.commit`), signed);
  const hash = (await f.git(dir, "hash-object", "--no-filters", "-t", "commit", "-w", join(f.base, `${name}.commit`)))
    .trim();
  await f.git(dir, "update-ref", "refs/heads/main", hash);
  for (const hook of HOOKS) await Deno.copyFile(join(hooks, hook), join(dir, ".git", "hooks", hook));
  await Deno.chmod(join(dir, ".git", "hooks"), 0o755);
  for (const hook of HOOKS) await Deno.chmod(join(dir, ".git", "hooks", hook), 0o755);
  const settings: [string, string][] = [
    ["core.fsmonitor", join(bin, "fsmonitor")],
    ["core.hooksPath", hooks],
    ["diff.external", join(bin, "diff-external")],
    ["core.pager", join(bin, "pager")],
    ["diff.x.textconv", join(bin, "textconv")],
    ["diff.x.command", join(bin, "diff-command")],
    ["merge.x.driver", join(bin, "merge-driver")],
    ["core.sshCommand", join(bin, "ssh")],
    ["uploadpack.packObjectsHook", join(bin, "pack-objects-hook")],
    ["gpg.program", join(bin, "gpg")],
    ["log.showSignature", "true"],
    ["commit.gpgSign", "true"],
    ["core.editor", join(bin, "editor")],
    ["sequence.editor", join(bin, "editor")],
    ["credential.helper", join(bin, "credential")],
    ["core.askPass", join(bin, "askpass")],
    ["core.alternateRefsCommand", join(bin, "alternate-refs")],
    ["core.worktree", outside],
    ["gc.auto", "1"],
  ];
  if (filters) {
    settings.push(
      ["filter.x.clean", join(bin, "filter-clean")],
      ["filter.x.smudge", join(bin, "filter-smudge")],
      ["filter.x.process", join(bin, "filter-process")],
      ["filter.x.required", "true"],
    );
  }
  await appendConfig(dir, settings);
  // Same size, new mtime: git must hash the file again, through the clean filter if it ran one.
  await Deno.writeTextFile(join(dir, "a.txt"), "two\n");
  await Deno.writeTextFile(join(dir, "c.txt"), "new file\n");
  return dir;
}

async function markers(f: Fixture): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(join(f.base, "markers"))) names.push(entry.name);
  return names.sort();
}

/** Every read-only tool, every argument shape that reaches the work tree or a diff. */
async function readAll(mgr: Manager, repo: string): Promise<string[]> {
  const outputs = [
    await mgr.status(repo),
    await mgr.log(repo, {}),
    await mgr.log(repo, { ref: "main", path: "a.txt", maxCount: 5 }),
    await mgr.show(repo, "HEAD", undefined),
    await mgr.show(repo, "HEAD", "a.txt"),
    await mgr.diff(repo),
    await mgr.diff(repo, "HEAD"),
    await mgr.diff(repo, "HEAD", "HEAD", "a.txt"),
    await mgr.grep(repo, "o"),
    await mgr.grep(repo, "o", "HEAD", "a.txt"),
    await mgr.blame(repo, "a.txt"),
    await mgr.blame(repo, "a.txt", "HEAD"),
  ];
  return outputs.map((o) => o.text);
}

Deno.test("no tool runs a program a repository's config names: fsmonitor, hooks, pager, external diff, textconv, filters, ssh, gpg, editor", async () => {
  const f = await fixture();
  try {
    const dir = await hostile(f, "hostile", true);
    const mgr = f.manager({ hostile: dir, whostile: dir });
    const texts = await readAll(mgr, "hostile");
    assert.match(texts[0], /^ M a\.txt$/m, "status sees the work tree given, not core.worktree");
    assert.match(texts[5], /^\+two$/m, "diff shows the stored content, not a textconv of it");
    await assert.rejects(mgr.commit("whostile", "x", ["a.txt"]), /defines filter drivers \(x\)/);
    assert.deepEqual(await markers(f), []);
    // The control: plain git in the same repository runs them.
    await f.git(dir, "diff", "HEAD").catch(() => "");
    assert.notDeepEqual(await markers(f), [], "the hostile config did not work: this test proves nothing");
  } finally {
    await f.end();
  }
});

Deno.test("git_commit in a hostile repository without filters runs no hook, signer or editor, and commits", async () => {
  const f = await fixture();
  try {
    const dir = await hostile(f, "whostile", false);
    const mgr = f.manager({ whostile: dir });
    const outcome = await mgr.commit("whostile", "change a, add c", ["a.txt", "c.txt"]);
    assert.match(outcome.commit, /^[0-9a-f]{40}$/);
    assert.deepEqual(outcome.paths, ["a.txt", "c.txt"]);
    const shown = await f.git(dir, "-c", "log.showSignature=false", "show", "--stat", "--format=%an %s", "HEAD");
    assert.match(shown, /^forge-git change a, add c$/m);
    assert.match(shown, /c\.txt/);
    await readAll(mgr, "whostile");
    assert.deepEqual(await markers(f), []);
  } finally {
    await f.end();
  }
});

Deno.test("git_commit commits as the configured author and the message as given, whatever the repository's author.*, committer.*, commit.cleanup, core.commentChar or i18n.commitEncoding", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("wident", { "a.txt": "one\n" });
    await appendConfig(dir, [
      ["author.name", "EVIL"],
      ["author.email", "evil@example.com"],
      ["committer.name", "EVILC"],
      ["committer.email", "evilc@example.com"],
      ["commit.cleanup", "strip"],
      ["core.commentChar", "T"],
      ["i18n.commitEncoding", "ISO-8859-1"],
    ]);
    await Deno.writeTextFile(join(dir, "a.txt"), "two\n");
    const message = "Fix the bug in café\nThe tests now pass\nTo be reviewed: yes";
    await f.manager({ wident: dir }).commit("wident", message, ["a.txt"]);
    const stored = await f.git(dir, "cat-file", "commit", "HEAD");
    assert.match(stored, /^author forge-git <[^>]+> /m);
    assert.match(stored, /^committer forge-git <[^>]+> /m);
    assert.doesNotMatch(stored, /^encoding /m, "the message is labelled as another encoding");
    assert.ok(stored.endsWith(`\n\n${message}\n`), stored);
  } finally {
    await f.end();
  }
});

Deno.test("git_commit writes as plain git on Linux whatever the repository's core.sharedRepository, core.ignoreCase, core.sparseCheckout or core.autocrlf; an info/exclude over 1 MiB is refused", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("wconfig", { "D/f.txt": "f\n", "README": "r\n", "x/y.txt": "y\n" });
    await appendConfig(dir, [
      ["core.sharedRepository", "0777"],
      ["core.ignoreCase", "true"],
      ["core.sparseCheckout", "true"],
      ["core.autocrlf", "input"],
    ]);
    // Sparse-checkout patterns that leave x/ out: git add would refuse x/y.txt.
    await Deno.writeTextFile(join(dir, ".git", "info", "sparse-checkout"), "/D/\n/README\n");
    await Deno.mkdir(join(dir, "d"));
    await Deno.writeTextFile(join(dir, "d", "new.txt"), "n\n");
    await Deno.writeTextFile(join(dir, "readme"), "untracked\n");
    await Deno.writeTextFile(join(dir, "x", "y.txt"), "y2\n");
    await Deno.writeTextFile(join(dir, "crlf.txt"), "a\r\nb\r\n");
    const mgr = f.manager({ wconfig: dir });
    await mgr.commit("wconfig", "m", ["d/new.txt", "x/y.txt", "crlf.txt"]);
    assert.match((await mgr.status("wconfig")).text, /^\?\? readme$/m, "an untracked readme beside README is hidden");
    const tree = await f.git(dir, "ls-tree", "-r", "--name-only", "HEAD");
    assert.deepEqual(tree.trim().split("\n"), ["D/f.txt", "README", "crlf.txt", "d/new.txt", "x/y.txt"]);
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:crlf.txt"), "a\r\nb\r\n", "stored with its CRs dropped");
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:x/y.txt"), "y2\n");
    const head = (await f.git(dir, "rev-parse", "HEAD")).trim();
    const written = ["index", "refs/heads/main", `objects/${head.slice(0, 2)}`].map((p) => join(dir, ".git", p));
    for (const path of written) {
      assert.equal((await Deno.stat(path)).mode! & 0o002, 0, `${path} is world-writable`);
    }
    // The control: plain git, under the same config, makes the ref world-writable and hides the readme.
    await f.git(dir, "commit", "-q", "--allow-empty", "-m", "plain");
    const ref = (await Deno.stat(join(dir, ".git", "refs", "heads", "main"))).mode! & 0o777;
    assert.equal(ref & 0o002, 0o002, "core.sharedRepository did not apply: this test proves nothing");
    assert.doesNotMatch(await f.git(dir, "status", "--porcelain"), /readme/, "core.ignoreCase did not apply");
    await assert.rejects(f.git(dir, "add", "--dry-run", "x/y.txt"), /outside of your sparse-checkout definition/);
    const stored = (await f.git(dir, "hash-object", "crlf.txt")).trim();
    assert.notEqual(stored, (await f.git(dir, "rev-parse", "HEAD:crlf.txt")).trim(), "core.autocrlf did not apply");
    // Patterns git would hold a structure each of, and try every untracked path against, refused before git runs.
    await Deno.writeTextFile(join(dir, ".git", "info", "exclude"), "*.o\n".repeat(262_145));
    await assert.rejects(
      mgr.status("wconfig"),
      /^PolicyError: Cannot use repo "wconfig": its info\/exclude file is over 1048576 bytes, more than this server/,
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit stores a regular file as a file where the index holds a link, whatever the repository's core.symlinks, and keeps the index's mode under its core.fileMode=false as plain git does", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("wmode", { "a.txt": "a\n", "target": "t\n" });
    const a = join(dir, "a.txt");
    const link = join(dir, "link");
    // The index holds `link` as a symbolic link (any blob is a link's target) and a.txt as executable.
    const asLink = async () => {
      const blob = (await f.git(dir, "rev-parse", "HEAD:target")).trim();
      await f.git(dir, "update-index", "--add", "--cacheinfo", `120000,${blob},link`);
    };
    await asLink();
    await Deno.chmod(a, 0o755);
    await f.git(dir, "add", "a.txt");
    await f.git(dir, "commit", "-q", "-m", "a link and an executable file");
    assert.match(await f.git(dir, "ls-files", "-s", "a.txt", "link"), /^100755 .*\ta\.txt\n120000 .*\tlink\n$/);
    await appendConfig(dir, [["core.symlinks", "false"], ["core.fileMode", "false"]]);
    // In the work tree: a regular file naming a secret where the link was, and a.txt no longer executable.
    await Deno.writeTextFile(link, "/etc/passwd");
    await Deno.writeTextFile(a, "a2\n");
    await Deno.chmod(a, 0o644);
    const mgr = f.manager({ wmode: dir });
    await mgr.commit("wmode", "m", ["link", "a.txt"]);
    assert.match(
      await f.git(dir, "ls-tree", "HEAD", "a.txt", "link"),
      /^100755 blob .*\ta\.txt\n100644 blob .*\tlink\n$/,
    );
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:link"), "/etc/passwd");
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:a.txt"), "a2\n");
    // The control: plain git, under the same config, stages the file as a link.
    await asLink();
    await Deno.writeTextFile(link, "/etc/shadow");
    await f.git(dir, "add", "link");
    assert.match(
      await f.git(dir, "ls-files", "-s", "link"),
      /^120000 /,
      "core.symlinks did not apply: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit and git_status see a file replaced by one of its size with its mtime put back, whatever the repository's core.checkStat; and core.ignoreStat hides no later edit", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("wstat", { "d/x": "GOOD\n", "a.txt": "a\n" });
    const x = join(dir, "d", "x");
    // The index records an old mtime (2020), so the entry is not racily clean and git trusts its stat data.
    const old = new Date("2020-01-01T00:00:00Z");
    await Deno.utime(x, old, old);
    await f.git(dir, "update-index", "--refresh");
    // Rewritten as a new file (a new inode, as an editor saving or an archive unpacked would), its mtime put back.
    await Deno.writeTextFile(`${x}.new`, "EVIL\n");
    await Deno.utime(`${x}.new`, old, old);
    await Deno.rename(`${x}.new`, x);
    await appendConfig(dir, [["core.checkStat", "minimal"], ["core.trustctime", "false"], ["core.ignoreStat", "true"]]);
    assert.equal(
      await f.git(dir, "status", "--porcelain"),
      "",
      "core.checkStat did not apply: this test proves nothing",
    );
    const mgr = f.manager({ wstat: dir });
    assert.match((await mgr.status("wstat")).text, /^ M d\/x$/m);
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    await mgr.commit("wstat", "m", ["d", "a.txt"]);
    assert.equal(await f.git(dir, "cat-file", "blob", "HEAD:d/x"), "EVIL\n");
    // No entry the commit wrote is marked assume-unchanged (h): a later edit shows.
    assert.doesNotMatch(await f.git(dir, "ls-files", "-v"), /^h /m);
    await Deno.writeTextFile(join(dir, "a.txt"), "a3\n");
    assert.match((await mgr.status("wstat")).text, /^ M a\.txt$/m);
    // The control: plain git under the same config marks what it commits assume-unchanged.
    await f.git(dir, "commit", "-q", "-m", "plain", "a.txt");
    assert.match(
      await f.git(dir, "ls-files", "-v", "a.txt"),
      /^h /,
      "core.ignoreStat did not apply: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("git_commit copies no outside file into .git through rerere: an rr-cache folder and a MERGE_RR naming ../outside/secret", async () => {
  const f = await fixture();
  try {
    const secret = join(f.base, "outside", "secret");
    await Deno.mkdir(join(f.base, "outside"));
    await Deno.writeTextFile(secret, "OUTSIDE-SECRET\n");
    const dir = await f.repo("wrerere", { "a.txt": "one\n" });
    // git turns rerere on when rr-cache exists, and after a commit records each MERGE_RR path, as written, as the
    // resolution of its conflict: a copy of the file into rr-cache/<id>/postimage.
    const id = "0123456789abcdef0123456789abcdef01234567";
    await Deno.mkdir(join(dir, ".git", "rr-cache", id), { recursive: true });
    await Deno.writeTextFile(join(dir, ".git", "MERGE_RR"), `${id}\t../outside/secret\0`);
    await Deno.writeTextFile(join(dir, "a.txt"), "two\n");
    const outcome = await f.manager({ wrerere: dir }).commit("wrerere", "m", ["a.txt"]);
    assert.match(outcome.commit, /^[0-9a-f]{40}$/);
    const postimage = join(dir, ".git", "rr-cache", id, "postimage");
    assert.equal(await Deno.readTextFile(postimage).catch(() => "none"), "none", "the outside file was copied");
    // The control: plain git copies it.
    await f.git(dir, "commit", "-q", "--allow-empty", "-m", "plain").catch(() => "");
    assert.equal(
      await Deno.readTextFile(postimage),
      "OUTSIDE-SECRET\n",
      "rerere did not run: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("a submodule's own config runs nothing: show, log, diff, status and grep never start a git under it, even where .gitmodules says ignore = none and the config diff.submodule=diff", async () => {
  const f = await fixture();
  try {
    const { bin } = await scripts(f);
    // The submodule: a real repository in the work tree whose own config names a diff driver its files select.
    const sub = await f.repo("sm/sub", { "a.txt": "one\n", ".gitattributes": "*.txt diff=evil\n" });
    await f.git(sub, "config", "diff.evil.command", join(bin, "diff-command"));
    const first = (await f.git(sub, "rev-parse", "HEAD")).trim();
    await Deno.writeTextFile(join(sub, "a.txt"), "two\n");
    await f.git(sub, "commit", "-q", "-am", "second");
    const second = (await f.git(sub, "rev-parse", "HEAD")).trim();
    // The superproject: a commit moving the gitlink, .gitmodules asking for the submodule's changes to be shown.
    const app = join(f.base, "sm");
    await f.git(app, "init", "-q", "-b", "main");
    await Deno.writeTextFile(
      join(app, ".gitmodules"),
      '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n',
    );
    await f.git(app, "add", ".gitmodules");
    await f.git(app, "update-index", "--add", "--cacheinfo", `160000,${first},sub`);
    await f.git(app, "commit", "-q", "-m", "add sub");
    await f.git(app, "update-index", "--cacheinfo", `160000,${second},sub`);
    await f.git(app, "commit", "-q", "-m", "move sub");
    await f.git(app, "config", "diff.submodule", "diff");
    await Deno.writeTextFile(join(sub, "a.txt"), "three\n");
    const mgr = f.manager({ sm: app });
    const texts = [
      await mgr.show("sm", "HEAD", undefined),
      await mgr.show("sm", "HEAD~1", undefined),
      await mgr.log("sm", {}),
      await mgr.diff("sm"),
      await mgr.diff("sm", "HEAD~1"),
      await mgr.diff("sm", "HEAD~1", "HEAD"),
      await mgr.status("sm"),
      await mgr.grep("sm", "sub"),
    ].map((out) => out.text);
    assert.match(texts[0], /move sub/);
    assert.deepEqual(await markers(f), []);
    // The control: plain git shows the commit through the submodule's driver.
    await f.git(app, "show", "HEAD");
    assert.deepEqual(
      await markers(f),
      ["diff-command"],
      "the submodule's driver did not run: this test proves nothing",
    );
  } finally {
    await f.end();
  }
});

Deno.test("no transport runs whatever the repository's config allows: a promisor remote's ext:: command under protocol.ext.allow=always, even without GIT_NO_LAZY_FETCH", async () => {
  const f = await fixture();
  try {
    await scripts(f);
    // The transport's command: it leaves the marker and exits, so a fetch through it fails at once.
    const transport = join(f.base, "transport");
    await Deno.writeTextFile(transport, `#!/bin/sh\ntouch '${join(f.base, "markers", "transport")}'\n`, {
      mode: 0o755,
    });
    const dir = await f.repo("lazy", { "a.txt": "hello\n" });
    const blob = (await f.git(dir, "rev-parse", "HEAD:a.txt")).trim();
    await Deno.remove(join(dir, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    for (
      const [key, value] of [
        ["core.repositoryformatversion", "1"],
        ["extensions.partialClone", "origin"],
        ["remote.origin.url", `ext::${transport}`],
        ["remote.origin.promisor", "true"],
        ["protocol.ext.allow", "always"],
      ]
    ) await f.git(dir, "config", key, value);
    // git as the server runs it, without the lazy-fetch switch: the transport layer alone must hold.
    const { GIT_NO_LAZY_FETCH: _, ...env } = gitEnv(64);
    const run = (extra: Record<string, string>) =>
      new Deno.Command("/usr/bin/git", {
        args: [...PINNED_CONFIG.flatMap((c) => ["-c", c]), "--git-dir", join(dir, ".git"), "cat-file", "-p", blob],
        env: { ...env, ...extra },
        clearEnv: true,
        stdin: "null",
        stderr: "piped",
        stdout: "piped",
      }).output();
    const out = await run({});
    assert.equal(out.success, false);
    assert.match(new TextDecoder().decode(out.stderr), /transport 'ext' not allowed/);
    assert.deepEqual(await markers(f), []);
    // The control: without GIT_ALLOW_PROTOCOL, the repository's protocol.ext.allow beats protocol.allow=never.
    const { GIT_ALLOW_PROTOCOL: __, ...loose } = env;
    await new Deno.Command("/usr/bin/git", {
      args: [...PINNED_CONFIG.flatMap((c) => ["-c", c]), "--git-dir", join(dir, ".git"), "cat-file", "-p", blob],
      env: loose,
      clearEnv: true,
      stdin: "null",
      stderr: "null",
      stdout: "null",
    }).output();
    assert.deepEqual(await markers(f), ["transport"], "the ext:: command did not run: this test proves nothing");
  } finally {
    await f.end();
  }
});

Deno.test("git_log lists the commits as stored: no commit-graph, info/grafts, replace ref or multi-pack-index is read, a shallow file is, and one over 1 MiB is refused", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("history", { "a.txt": "one\n" });
    for (const text of ["two", "three"]) {
      await Deno.writeTextFile(join(dir, "a.txt"), `${text}\n`);
      await f.git(dir, "commit", "-q", "-a", "-m", text);
    }
    const [head, middle, root] = (await f.git(dir, "rev-list", "HEAD")).trim().split("\n");
    const mgr = f.manager({ history: dir });
    const served = async () => [...(await mgr.log("history", {})).text.matchAll(/^commit ([0-9a-f]{40})$/gm)];
    const plain = async () => (await f.git(dir, "rev-list", "HEAD")).trim().split("\n");
    const all = [head, middle, root];
    // A commit-graph that says HEAD's parent is the root commit: git believes it (a crafted one's EDGE chunk, which
    // git 2.39 does not bounds-check, drove every tool that reads commits to 1.5 GiB and SIGSEGV).
    await f.git(dir, "commit-graph", "write", "--reachable");
    const graph = join(dir, ".git", "objects", "info", "commit-graph");
    await Deno.writeFile(graph, withFirstParent(await Deno.readFile(graph), head, root));
    assert.deepEqual(await plain(), [head, root], "git read no commit-graph: this test proves nothing");
    assert.deepEqual((await served()).map((m) => m[1]), all);
    await Deno.remove(graph);
    // A graft says the same (git 2.39 inserts 300,000 descending lines of one in 4.7 s).
    await Deno.writeTextFile(join(dir, ".git", "info", "grafts"), `${head} ${root}\n`);
    assert.deepEqual(await plain(), [head, root], "git read no grafts: this test proves nothing");
    assert.deepEqual((await served()).map((m) => m[1]), all);
    await Deno.remove(join(dir, ".git", "info", "grafts"));
    // A replace ref, which the repository's own core.useReplaceRefs turns back on behind --no-replace-objects.
    await f.git(dir, "replace", head, root);
    await f.git(dir, "config", "core.useReplaceRefs", "true");
    const unpinned = (await f.git(dir, "--no-replace-objects", "rev-list", "HEAD")).trim().split("\n");
    assert.deepEqual(unpinned, [head], "git read no replace ref: this test proves nothing");
    assert.deepEqual((await served()).map((m) => m[1]), all);
    await f.git(dir, "replace", "-d", head);
    await f.git(dir, "config", "--unset", "core.useReplaceRefs");
    // A multi-pack-index whose offsets of HEAD and the root commit are swapped: git believes it.
    await f.git(dir, "repack", "-adq");
    await f.git(dir, "multi-pack-index", "write");
    const midx = join(dir, ".git", "objects", "pack", "multi-pack-index");
    await Deno.writeFile(midx, withSwappedOffsets(await Deno.readFile(midx), head, root));
    assert.deepEqual(await plain(), [head], "git read no multi-pack-index: this test proves nothing");
    assert.deepEqual((await served()).map((m) => m[1]), all);
    await Deno.remove(midx);
    // A shallow clone's file is read: the history ends at the commit it names.
    const shallow = join(dir, ".git", "shallow");
    await Deno.writeTextFile(shallow, `${middle}\n`);
    assert.deepEqual((await served()).map((m) => m[1]), [head, middle]);
    // Over 1 MiB (25,600 lines, in descending order, git's slowest), refused before git runs.
    const lines = Array.from({ length: 25_600 }, (_, i) => (0xffffffff - i).toString(16).padStart(40, "f"));
    await Deno.writeTextFile(shallow, lines.map((line) => `${line}\n`).join(""));
    await assert.rejects(
      mgr.log("history", {}),
      /^PolicyError: Cannot use repo "history": its shallow file is over 1048576 bytes, more than this server lets/,
    );
  } finally {
    await f.end();
  }
});

/** Reads a chunked file's table (commit-graph, multi-pack-index): chunk id → offset, from the table at `at`. */
function chunkTable(bytes: Uint8Array, count: number, at: number): Map<string, number> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunks = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const entry = at + 12 * i;
    chunks.set(new TextDecoder().decode(bytes.subarray(entry, entry + 4)), Number(view.getBigUint64(entry + 4)));
  }
  return chunks;
}

/** The object ids a chunked file lists (SHA-1): the count from the fanout's last entry, the ids from OIDL, in order. */
function objectIds(bytes: Uint8Array, chunks: Map<string, number>): string[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const count = view.getUint32(chunks.get("OIDF")! + 255 * 4);
  return Array.from({ length: count }, (_, i) => {
    const at = chunks.get("OIDL")! + 20 * i;
    return [...bytes.subarray(at, at + 20)].map((x) => x.toString(16).padStart(2, "0")).join("");
  });
}

/** A multi-pack-index's bytes (SHA-1) with the pack positions of objects `a` and `b` swapped. */
function withSwappedOffsets(bytes: Uint8Array, a: string, b: string): Uint8Array {
  // Header: "MIDX", version, hash version, chunk count, base count, pack count (4 bytes); then the table.
  const chunks = chunkTable(bytes, bytes[6], 12);
  const ids = objectIds(bytes, chunks);
  const out = bytes.slice();
  // OOFF: per object, its pack's number and its offset in that pack (8 bytes).
  const [at, bt] = [a, b].map((id) => chunks.get("OOFF")! + 8 * ids.indexOf(id));
  out.set(bytes.subarray(bt, bt + 8), at);
  out.set(bytes.subarray(at, at + 8), bt);
  return out;
}

/** A commit-graph's bytes (SHA-1, one file) with `commit`'s first parent set to `parent`. */
function withFirstParent(bytes: Uint8Array, commit: string, parent: string): Uint8Array {
  // Header: "CGPH", version, hash version, chunk count, base count; then the table.
  const chunks = chunkTable(bytes, bytes[6], 8);
  const ids = objectIds(bytes, chunks);
  const out = bytes.slice();
  // CDAT: per commit, its root tree (20 bytes), then its first parent's position.
  new DataView(out.buffer).setUint32(chunks.get("CDAT")! + 36 * ids.indexOf(commit) + 20, ids.indexOf(parent));
  return out;
}
