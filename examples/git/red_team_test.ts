// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// Attacks on what the server hands to git, each over real stdio against the
// server started with exactly the flags it prints: a revision that git would
// read as a path, GIT_* variables around the server, and a work-tree file
// hard-linked to a file outside every repository.
import assert from "node:assert/strict";
import { join } from "node:path";
import { printedPermissions } from "@forge/toolkit/permissions";
import { spawnServer } from "@forge/toolkit/testing";
import { assertAnswered, assertRefused, serveUnderPrintedFlags, textOf } from "../served.ts";
import type { CallResult } from "@forge/toolkit/testing";
import { REPO, SCRIPT } from "./_e2e.ts";
import { closeSharedServer, hostileTree, plainGit, sharedServer, system } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tests that need no setting of their own make their repositories in one tree, each under its own names, behind
 * one server ({@linkcode sharedServer}); the last of them closes it.
 */
const SHARED: Partial<Deno.TestDefinition> = { permissions: perms, sanitizeOps: false, sanitizeResources: false };
const inShared = sharedServer(SCRIPT);

Deno.test({
  name:
    "no revision is read as a path: an outside file as from, to, ref or rev is refused, never shown, and refused alike whether it exists or not",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const app = await t.f.repo("app", { "README.md": "# app\n" });
    // With a work-tree file named "--", git 2.39 takes `diff … <outside file> --` for `diff --no-index`.
    await Deno.writeTextFile(join(app, "--"), "x\n");
    const leak = await plainGit(app, "diff", "--end-of-options", "../outside/secret", "--");
    assert.ok(leak.includes(t.canary), "plain git does not fall for it: this test proves nothing");
    const config = await t.config({ repos: [{ name: "app", path: "app" }], max_output_bytes: 1024 });
    const { server, call } = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      const shapes = (rev: string): [string, Record<string, unknown>][] => [
        ["git_diff", { repo: "app", from: rev }],
        ["git_diff", { repo: "app", from: rev, path: "README.md" }],
        ["git_diff", { repo: "app", from: "HEAD", to: rev }],
        ["git_log", { repo: "app", ref: rev }],
        ["git_show", { repo: "app", rev }],
        ["git_show", { repo: "app", rev, path: "README.md" }],
        ["git_grep", { repo: "app", pattern: "CANARY", ref: rev }],
        ["git_blame", { repo: "app", path: "README.md", ref: rev }],
      ];
      const pairs = [
        ["../outside/secret", "../outside/missing"],
        [t.secret, join(t.f.base, "outside", "missing")],
        ["/etc/passwd", "/etc/no-such-file"],
      ];
      for (const [present, absent] of pairs) {
        const [withFile, without] = [shapes(present), shapes(absent)];
        for (let i = 0; i < withFile.length; i++) {
          const [name, args] = withFile[i];
          const [one, other] = [await call(name, args), await call(name, without[i][1])];
          const shown = `${name} ${JSON.stringify(args)}: ${textOf(one)}`;
          assert.equal(one.isError, true, shown);
          assert.ok(!textOf(one).includes(t.canary), shown);
          assert.equal(
            textOf(one).replaceAll(JSON.stringify(present), "<rev>"),
            textOf(other).replaceAll(JSON.stringify(absent), "<rev>"),
            `${shown}: the refusal tells whether the file exists`,
          );
        }
      }
      assert.match(
        await textOf(await call("git_diff", { repo: "app", from: t.secret })),
        /names no tree in repo "app"/,
      );
    } finally {
      await server.close();
      await t.f.end();
    }
  },
});

Deno.test({
  name:
    "GIT_* variables around the server never reach git: a GIT_DIR, object directory or alternates elsewhere change nothing; nor is the tenant file looked for at start committed",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const app = await t.f.repo("app", { "README.md": "# app\n" });
    const config = await t.config({ repos: [{ name: "app", path: "app", writable: true }] });
    const privateGit = join(t.private, ".git");
    const env = {
      GIT_DIR: privateGit,
      GIT_WORK_TREE: t.private,
      GIT_COMMON_DIR: privateGit,
      GIT_OBJECT_DIRECTORY: join(privateGit, "objects"),
      GIT_ALTERNATE_OBJECT_DIRECTORIES: join(privateGit, "objects"),
      GIT_INDEX_FILE: join(privateGit, "index"),
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "core.alternateRefsCommand",
      GIT_CONFIG_VALUE_0: "/bin/false",
      // The tenant file (app/git.json) is missing, so -config is used; it is one of the server's own files all the same.
      FORGE_TENANT_CONFIG: app,
    };
    const flags = await printedPermissions({ script: SCRIPT, config, cwd: REPO });
    const server = await spawnServer({ args: [...flags, SCRIPT, "-config", config], cwd: REPO, env });
    const call = (name: string, args: Record<string, unknown>) => server.client.callTool({ name, arguments: args });
    try {
      const log = await call("git_log", { repo: "app" });
      assertAnswered(log, "git_log");
      assert.match(textOf(log), /first/);
      assert.ok(!textOf(log).includes(t.canary), textOf(log));
      const shown = await call("git_show", { repo: "app", rev: t.privateHead });
      assertRefused(
        shown,
        new RegExp(`^Cannot use rev "${t.privateHead}": it names no object in repo "app"$`),
        "the private head",
      );
      assert.ok(!textOf(shown).includes(t.canary));
      assert.equal(textOf(await call("git_grep", { repo: "app", pattern: "CANARY" })), "");
      await Deno.writeTextFile(join(app, "git.json"), "{}\n");
      const commit = await call("git_commit", { repo: "app", message: "m", paths: ["git.json"] });
      assert.equal(commit.isError, true, textOf(commit));
      assert.equal(textOf(commit), 'Cannot commit "git.json" in repo "app": the policy denies this path');
    } finally {
      await server.close();
      await t.f.end();
    }
  },
});

Deno.test({
  name:
    "a work-tree file hard-linked to an outside file is read by no tool (diff, grep, blame, commit, so never show) unless allow_hard_links, which never commits the server's config by a second name, and a commit never writes through a second name of COMMIT_EDITMSG or a reflog",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const app = await t.f.repo("app", { "README.md": "# app\n", "linked.txt": "old\n", "notes.txt": "plain\n" });
    await Deno.remove(join(app, "linked.txt"));
    await Deno.link(t.secret, join(app, "linked.txt"));
    assert.ok((await plainGit(app, "diff")).includes(t.canary), "plain git does not show it: this test proves nothing");
    const repos = [{ name: "app", path: "app", writable: true }];
    const served = await serveUnderPrintedFlags(SCRIPT, await t.config({ repos }));
    try {
      const attacks: [string, Record<string, unknown>][] = [
        ["git_diff", { repo: "app" }],
        ["git_diff", { repo: "app", from: "HEAD" }],
        ["git_diff", { repo: "app", path: "linked.txt" }],
        ["git_grep", { repo: "app", pattern: "CANARY" }],
        ["git_grep", { repo: "app", pattern: "CANARY", path: "linked.txt" }],
        ["git_blame", { repo: "app", path: "linked.txt" }],
        ["git_commit", { repo: "app", message: "take it", paths: ["linked.txt"] }],
      ];
      for (const [name, args] of attacks) {
        const text = await served.refused(name, args, /"linked\.txt".*has 2 hard links/);
        assert.ok(!text.includes(t.canary), `${name} ${JSON.stringify(args)}: ${text}`);
      }
      // Nothing was committed, so git_show has only the old content; the other files are served as before.
      assert.equal(await served.ok("git_show", { repo: "app", rev: "HEAD", path: "linked.txt" }), "old\n");
      assert.match(await served.ok("git_log", { repo: "app", max_count: 1 }), /first/);
      assert.match(await served.ok("git_grep", { repo: "app", pattern: "plain" }), /^notes\.txt:1:plain$/m);
      assert.equal(await served.ok("git_diff", { repo: "app", path: "notes.txt" }), "");
      assert.match(await served.ok("git_blame", { repo: "app", path: "notes.txt", ref: "HEAD" }), /plain/);
    } finally {
      await served.server.close();
    }
    const config = await t.config({ repos, allow_hard_links: true });
    const allowed = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      assert.ok((await allowed.ok("git_diff", { repo: "app" })).includes(t.canary), "allow_hard_links: true reads it");
      // Nor a second name of the server's own config, which git would commit (and git_show then serve).
      await Deno.link(config, join(app, "conf.json"));
      await allowed.refused(
        "git_commit",
        { repo: "app", message: "take the config", paths: ["conf.json"] },
        /^Cannot commit "conf\.json" in repo "app": the policy denies this path$/,
      );
      await Deno.remove(join(app, "conf.json"));
      // It allows reads only: git writes COMMIT_EDITMSG (truncated) and the reflogs (appended) in place, so a second
      // name there would take the model's message into an outside file. The commit is refused before git add.
      const message = join(t.f.base, "outside-message.txt");
      const reflog = join(t.f.base, "outside-reflog.txt");
      await Deno.writeTextFile(message, "kept\n");
      await Deno.writeTextFile(reflog, "kept\n");
      await Deno.remove(join(app, ".git", "COMMIT_EDITMSG"));
      await Deno.link(message, join(app, ".git", "COMMIT_EDITMSG"));
      await Deno.remove(join(app, ".git", "logs", "HEAD"));
      await Deno.link(reflog, join(app, ".git", "logs", "HEAD"));
      await Deno.writeTextFile(join(app, "notes.txt"), "changed\n");
      const commit = { repo: "app", message: "written through", paths: ["notes.txt"] };
      await allowed.refused(
        "git_commit",
        commit,
        /"COMMIT_EDITMSG", which a commit writes in place, and it has 2 hard/,
      );
      await Deno.remove(join(app, ".git", "COMMIT_EDITMSG"));
      await allowed.refused("git_commit", commit, /"logs\/HEAD", which a commit writes in place, and it has 2 hard/);
      assert.deepEqual([await Deno.readTextFile(message), await Deno.readTextFile(reflog)], ["kept\n", "kept\n"]);
      assert.equal(await plainGit(app, "diff", "--cached", "--name-only"), "", "git add ran");
    } finally {
      await allowed.server.close();
      await t.f.end();
    }
  },
});

const outsideNamed = ["include", "includeif", "blame", "home", "mailmap", "inside"];
const configNamesOutside = inShared(outsideNamed, async (t) => {
  // Lines git would echo: as a config key in an include's error, as a revision in blame's, as a name by the mailmap.
  const secret = join(t.f.base, "outside", "named");
  await Deno.writeTextFile(secret, `${t.canary}\nName ${t.canary} <test@example.com>\n`);
  const make = async (name: string, ...config: [string, string][]) => {
    const dir = await t.f.repo(name, { "README.md": `# ${name}\n`, ".git-blame-ignore-revs": "# none\n" });
    for (const [key, value] of config) await t.f.git(dir, "config", key, value);
  };
  await make("include", ["include.path", secret]);
  await make("includeif", ["includeIf.gitdir:/.path", secret]);
  await make("blame", ["blame.ignoreRevsFile", secret]);
  await make("home", ["blame.ignoreRevsFile", "~root/secret"]);
  await make("mailmap", ["mailmap.file", secret]);
  await make("inside", ["blame.ignoreRevsFile", ".git-blame-ignore-revs"]);
}, true);

Deno.test({
  name:
    "a repository's config that names an outside file (include.path, includeIf, blame.ignoreRevsFile, mailmap.file) never gets a byte of it shown",
  ...SHARED,
  async fn() {
    const { t, served } = await configNamesOutside();
    const [include, blame, mailmap] = ["include", "blame", "mailmap"].map((name) => join(t.f.base, name));
    // Plain git shows the outside file's text on stdout or stderr: what an unguarded server would hand back.
    const shown = async (cwd: string, ...args: string[]) => {
      const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
      const out = await new Deno.Command("/usr/bin/git", { args, cwd, env, clearEnv: true }).output();
      return new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    };
    for (
      const [dir, args] of [[include, ["rev-parse", "HEAD"]], [blame, ["blame", "README.md"]], [mailmap, [
        "log",
      ]]] as const
    ) {
      assert.ok((await shown(dir, ...args)).toLowerCase().includes(t.canary.toLowerCase()), `plain git: ${dir}`);
    }
    // Each result is kept (by tool and arguments): the refusals and answers below are those very calls'.
    const results = new Map<string, CallResult>();
    const key = (name: string, args: Record<string, unknown>) => `${name} ${JSON.stringify(args)}`;
    for (const repo of outsideNamed) {
      for (
        const [name, args] of [
          ["git_status", { repo }],
          ["git_log", { repo }],
          ["git_log", { repo, ref: "HEAD" }],
          ["git_show", { repo, rev: "HEAD" }],
          ["git_diff", { repo }],
          ["git_diff", { repo, from: "HEAD" }],
          ["git_grep", { repo, pattern: "#" }],
          ["git_blame", { repo, path: "README.md" }],
          ["git_blame", { repo, path: "README.md", ref: "HEAD" }],
          ["git_commit", { repo, message: "m", paths: ["README.md"] }],
        ] as [string, Record<string, unknown>][]
      ) {
        const result = await served.call(name, args);
        const text = textOf(result);
        assert.ok(!text.toLowerCase().includes(t.canary.toLowerCase()), `${name} ${JSON.stringify(args)}: ${text}`);
        results.set(key(name, args), result);
      }
    }
    const refused = (name: string, args: Record<string, unknown>, reason: RegExp) =>
      assertRefused(results.get(key(name, args))!, reason, key(name, args));
    const ok = (name: string, args: Record<string, unknown>) =>
      assertAnswered(results.get(key(name, args))!, key(name, args));
    refused("git_log", { repo: "include" }, /its config includes other files/);
    refused("git_log", { repo: "includeif" }, /its config includes other files/);
    refused("git_blame", { repo: "blame", path: "README.md" }, /blame\.ignoreRevsFile/);
    refused("git_blame", { repo: "home", path: "README.md" }, /blame\.ignoreRevsFile/);
    assert.match(ok("git_log", { repo: "blame" }), /first/);
    assert.match(ok("git_log", { repo: "mailmap" }), /Author: Test <test@example\.com>/);
    assert.match(ok("git_blame", { repo: "inside", path: "README.md" }), /# inside/);
  },
});

Deno.test({
  name: "a repository's config cannot choose how many threads git starts (grep.threads, index.threads)",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const app = await t.f.repo("app", { "README.md": "# app\n" });
    // Each thread reserves its stack: under 1 GiB of address space, 2,000 threads cannot start, git's own few can.
    const git = join(t.f.base, "git-in-1-gib");
    await Deno.writeTextFile(git, '#!/bin/sh\nulimit -v 1048576\nexec /usr/bin/git "$@"\n', { mode: 0o755 });
    await t.f.git(app, "config", "grep.threads", "2000");
    // A value git refuses shows whose value git read: the repository's, unless a pin beat it.
    await t.f.git(app, "config", "index.threads", "many");
    const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const plain = async (...args: string[]) =>
      new TextDecoder().decode(
        (await new Deno.Command(git, { args, cwd: app, env, clearEnv: true, stderr: "piped" }).output()).stderr,
      );
    assert.match(await plain("grep", "--no-index", "-e", "app"), /failed to create thread/, "the limit proves nothing");
    assert.match(await plain("status"), /bad numeric config value 'many' for 'index\.threads'/);
    const served = await serveUnderPrintedFlags(SCRIPT, await t.config({ repos: [{ name: "app", path: "app" }], git }));
    try {
      assert.equal(await served.ok("git_grep", { repo: "app", pattern: "app" }), "README.md:1:# app\n");
      assert.match(await served.ok("git_status", { repo: "app" }), /^## main/);
      assert.match(await served.ok("git_blame", { repo: "app", path: "README.md" }), /# app/);
    } finally {
      await served.server.close();
      await t.f.end();
    }
  },
});

const swappedFolder = inShared(["swapped"], async (t) => {
  const app = await t.f.repo("swapped", { "README.md": "# app\n", "docs/a.txt": "plain\n" });
  // The index still lists docs/a.txt as a file; the work tree's docs now leads outside.
  await Deno.remove(join(app, "docs"), { recursive: true });
  await Deno.writeTextFile(join(t.f.base, "outside", "a.txt"), `${t.canary}\n`);
  await system("ln", "-s", join(t.f.base, "outside"), join(app, "docs"));
});

Deno.test({
  name:
    "a tracked folder swapped for a link to an outside folder is read through by no tool: git_grep refuses the match",
  ...SHARED,
  async fn() {
    const { t, served } = await swappedFolder();
    const repo = "swapped";
    const app = join(t.f.base, repo);
    assert.ok((await plainGit(app, "grep", "-e", "CANARY")).includes(t.canary), "plain git does not read through it");
    const attacks: [string, Record<string, unknown>][] = [
      ["git_grep", { repo, pattern: "CANARY" }],
      ["git_grep", { repo, pattern: "CANARY", path: "." }],
      ["git_grep", { repo, pattern: "CANARY", path: "docs/a.txt" }],
      ["git_diff", { repo }],
      ["git_diff", { repo, from: "HEAD" }],
      ["git_blame", { repo, path: "docs/a.txt" }],
      ["git_status", { repo }],
    ];
    for (const [name, args] of attacks) {
      const text = textOf(await served.call(name, args));
      assert.ok(!text.includes(t.canary), `${name} ${JSON.stringify(args)}: ${text}`);
    }
    await served.refused("git_grep", { repo, pattern: "CANARY" }, /"docs\/a\.txt".*symbolic link/);
    assert.match(await served.ok("git_grep", { repo, pattern: "app" }), /^README\.md:1:# app$/m);
  },
});

const infoNames = ["grafts", "attributes", "exclude"];
const infoLinks = inShared([...infoNames, "chain"], async (t) => {
  for (const name of infoNames) {
    const dir = await t.f.repo(name, { "README.md": `# ${name}\n` });
    // git's advice would fill the first lines of its error; the repository turns it off.
    await t.f.git(dir, "config", "advice.graftFileDeprecated", "false");
    await Deno.remove(join(dir, ".git", "info", name)).catch(() => {});
    await system("ln", "-s", t.secret, join(dir, ".git", "info", name));
  }
  // git warns "invalid commit-graph chain: line '…' not a hash", quoting the line.
  const chain = await t.f.repo("chain", { "README.md": "# chain\n" });
  await Deno.mkdir(join(chain, ".git", "objects", "info", "commit-graphs"));
  await system("ln", "-s", t.secret, join(chain, ".git", "objects", "info", "commit-graphs", "commit-graph-chain"));
});

Deno.test({
  name:
    "a link in the git directory's info folder (grafts, attributes, exclude) or to a commit-graph chain, leading outside, is refused before git runs",
  ...SHARED,
  async fn() {
    const { t, served } = await infoLinks();
    const names = infoNames;
    const grafts = join(t.f.base, "grafts");
    const env = { PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };
    const plain = await new Deno.Command("/usr/bin/git", {
      args: ["blame", "--", "nope"],
      cwd: grafts,
      env,
      clearEnv: true,
    })
      .output();
    assert.match(new TextDecoder().decode(plain.stderr), new RegExp(`^error: bad graft data: ${t.canary}`));
    for (const repo of names) {
      for (
        const [tool, args] of [
          ["git_blame", { repo, path: "nope" }],
          ["git_log", { repo }],
          ["git_status", { repo }],
        ] as [string, Record<string, unknown>][]
      ) {
        const text = textOf(await served.call(tool, args));
        assert.ok(!text.includes(t.canary), `${tool} ${repo}: ${text}`);
        assert.match(
          text,
          new RegExp(`^Cannot use repo "${repo}": its git directory holds a link "info/${repo}" that leads`),
        );
      }
    }
    const refused =
      /^Cannot use repo "chain": its object store holds a link "info\/commit-graphs\/commit-graph-chain" that leads outside/;
    await served.refused("git_blame", { repo: "chain", path: "nope" }, refused);
  },
});

const nestedRepositories = inShared(["nested"], async (t) => {
  const app = await t.f.repo("nested", { "README.md": "# app\n" });
  await Deno.mkdir(join(app, "sub"));
  await Deno.writeTextFile(join(app, "sub", ".git"), `gitdir: ${join(t.private, ".git")}\n`);
  await Deno.writeTextFile(join(app, "sub", "file"), "x\n");
  await t.f.repo("nested/deps/inner", { "g.txt": "g\n" });
  await t.f.git(app, "update-index", "--add", "--cacheinfo", `160000,${t.privateHead},lib`);
  await t.f.git(app, "commit", "-q", "-m", "a gitlink");
  await Deno.writeTextFile(join(app, "README.md"), "# changed\n");
}, true);

Deno.test({
  name:
    "git_commit refuses a path that is a repository of its own (a .git file naming an outside repository, a nested repository, a tracked gitlink) and stages nothing",
  ...SHARED,
  async fn() {
    const { t, served } = await nestedRepositories();
    const repo = "nested";
    const app = join(t.f.base, repo);
    // Plain git stages the outside repository's HEAD as a gitlink: what an unguarded server would commit.
    const copy = join(t.f.base, "copy");
    await system("cp", "-a", app, copy);
    await plainGit(copy, "add", "--", "sub");
    assert.match(await plainGit(copy, "ls-files", "--stage", "--", "sub"), new RegExp(`^160000 ${t.privateHead} `));
    const index = await t.f.git(app, "ls-files", "--stage");
    const head = await t.f.git(app, "rev-parse", "HEAD");
    for (
      const [paths, shown] of [[["sub"], "sub"], [["deps"], "deps/inner"], [["lib"], "lib"], [
        ["README.md", "sub"],
        "sub",
      ]]
    ) {
      await served.refused(
        "git_commit",
        { repo, message: "m", paths },
        new RegExp(`^Cannot commit "${shown}" in repo "nested": it is a git repository of its own`),
      );
    }
    assert.equal(await t.f.git(app, "ls-files", "--stage"), index, "the index changed");
    assert.equal(await t.f.git(app, "rev-parse", "HEAD"), head);
    assert.match(await served.ok("git_commit", { repo, message: "m", paths: ["README.md"] }), /README\.md/);
  },
});

closeSharedServer(nestedRepositories, SHARED);

Deno.test({
  name:
    "a git_grep pattern whose repetitions glibc would copy past the limit is refused before git runs; real repetitions are searched",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    await t.f.repo("app", { "README.md": `# app ${"ab".repeat(20)}\n` });
    // git grep -E hands the pattern to glibc's regcomp, which copies `a{1,32767}` 32,767 times and keeps, per copy,
    // every copy after it: 10 bytes took git past 1.6 GB in 5 s. A short deadline: without the check, git runs to it.
    const config = await t.config({ repos: [{ name: "app", path: "app" }], timeout_ms: 2000 });
    const served = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      for (const pattern of ["a{1,32767}", "a{255}{255}{255}", "(){1,2000}", "((a?){1,40}){1,40}"]) {
        for (const ref of [undefined, "HEAD"]) {
          const started = Date.now();
          await served.refused("git_grep", { repo: "app", pattern, ref }, /repetitions expand to over 2048 parts/);
          assert.ok(Date.now() - started < 1500, `${pattern}: took ${Date.now() - started} ms`);
        }
      }
      assert.match(await served.ok("git_grep", { repo: "app", pattern: "(ab){20}" }), /^README\.md:1:# app/m);
      assert.match(await served.ok("git_grep", { repo: "app", pattern: "b{1,1000}$" }), /^README\.md:1:# app/m);
    } finally {
      await served.server.close();
      await t.f.end();
    }
  },
});
