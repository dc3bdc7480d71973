// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// A repository is what its configured path holds: over real stdio, against
// the server started with exactly the flags it prints, repositories whose
// `.git` leads elsewhere (a `gitdir:` file, a link, `commondir`, alternates,
// a linked object store) or that another user owns are refused at start,
// before every run and after a reload, with one line that says why.
import assert from "node:assert/strict";
import { join } from "node:path";
import { serveUnderPrintedFlags, textOf } from "../served.ts";
import { SCRIPT } from "./_e2e.ts";
import { hostileTree, system } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/** Every tool once, on one repository. */
function everyTool(repo: string, privateHead: string): [string, Record<string, unknown>][] {
  return [
    ["git_status", { repo }],
    ["git_log", { repo }],
    ["git_show", { repo, rev: privateHead }],
    ["git_diff", { repo }],
    ["git_grep", { repo, pattern: "CANARY", ref: "HEAD" }],
    ["git_blame", { repo, path: "secret.txt", ref: "HEAD" }],
    ["git_commit", { repo, message: "into the private repository", paths: ["README.md"] }],
  ];
}

Deno.test({
  name:
    "a repository whose git directory, common directory or object store leads outside its path is refused at start, before every run and after a reload",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const privateGit = join(t.private, ".git");
    const make = (name: string) => t.f.repo(name, { "README.md": `# ${name}\n` });
    const gitfile = join(t.f.base, "gitfile");
    await Deno.mkdir(gitfile);
    await Deno.writeTextFile(join(gitfile, "README.md"), "# gitfile\n");
    await Deno.writeTextFile(join(gitfile, ".git"), "gitdir: ../private/.git\n");
    const dotlink = join(t.f.base, "dotlink");
    await Deno.mkdir(dotlink);
    await system("ln", "-s", privateGit, join(dotlink, ".git"));
    await Deno.writeTextFile(join(await make("alternates"), ".git/objects/info/alternates"), `${privateGit}/objects\n`);
    await Deno.writeTextFile(
      join(await make("relative"), ".git/objects/info/alternates"),
      "../../../private/.git/objects\n",
    );
    await Deno.writeTextFile(join(await make("commondir"), ".git/commondir"), "../../private/.git\n");
    const objlink = await make("objlink");
    await Deno.remove(join(objlink, ".git/objects"), { recursive: true });
    await system("ln", "-s", join(privateGit, "objects"), join(objlink, ".git/objects"));
    await Deno.writeTextFile(join(await make("web"), ".git/objects/info/http-alternates"), "https://example.com/o\n");
    await Deno.writeTextFile(join(await make("shared"), ".git/objects/info/alternates"), `${privateGit}/objects\n`);
    const app = await make("app");
    const hostile: [string, RegExp][] = [
      ["gitfile", /its git directory is not a folder inside its path$/],
      ["dotlink", /its git directory is not a folder inside its path$/],
      ["alternates", /its alternate object store is not a folder inside its path$/],
      ["relative", /its alternate object store is not a folder inside its path$/],
      ["commondir", /its common directory is not a folder inside its path$/],
      ["objlink", /its object store is not a folder inside its path$/],
      ["web", /its object store names http-alternates$/],
    ];
    const repos = [
      ...hostile.map(([name]) => ({ name, path: name, writable: true })),
      // The control: the same alternates, allowed by name, are served.
      { name: "shared", path: "shared", allow_outside: [join(privateGit, "objects")] },
      { name: "app", path: "app" },
    ];
    const config = await t.config({ repos });
    const commits = await t.f.git(t.private, "rev-list", "--count", "--all");
    const served = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      for (const [name, reason] of hostile) {
        for (const [tool, args] of everyTool(name, t.privateHead)) {
          const result = await served.call(tool, args);
          assert.equal(result.isError, true, `${tool} ${name}: ${textOf(result)}`);
          assert.match(textOf(result), new RegExp(`^Cannot use repo "${name}": ${reason.source}`), `${tool} ${name}`);
          assert.ok(!textOf(result).includes(t.canary));
        }
      }
      assert.equal(
        await t.f.git(t.private, "rev-list", "--count", "--all"),
        commits,
        "a commit reached the private repo",
      );
      const control = await served.ok("git_show", { repo: "shared", rev: t.privateHead });
      assert.ok(
        control.includes(t.canary),
        "the alternates do not reach the private repository: this test proves nothing",
      );
      assert.match(await served.ok("git_log", { repo: "app" }), /first/);
      // Made hostile while the server runs: refused at the very next run.
      await Deno.writeTextFile(join(app, ".git/objects/info/alternates"), `${privateGit}/objects\n`);
      await served.refused("git_log", { repo: "app" }, /^Cannot use repo "app": its alternate object store is not/);
      // A reload checks every repository again and says so.
      await t.config({ repos, timeout_ms: 20_000 });
      await served.refused("git_status", { repo: "app" }, /alternate object store/);
    } finally {
      assert.equal((await served.server.close()).code, 0);
    }
    const said = served.server.stderr().split("\n").filter((line) => line.startsWith("git: Cannot use repo"));
    for (const [name, reason] of hostile) {
      const lines = said.filter((line) => line.startsWith(`git: Cannot use repo "${name}": `));
      assert.equal(lines.length, 2, `${name}: one line at start and one after the reload\n${said.join("\n")}`);
      assert.match(lines[0], reason);
    }
    assert.equal(said.filter((line) => line.includes('"app"')).length, 1, "app: refused after the reload only");
    assert.ok(!said.some((line) => line.includes('"shared"')));
    await t.f.end();
  },
});

Deno.test({
  name: "a repository another user owns (work tree, git directory or object store) is refused unless trust_other_owner",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const make = (name: string) => t.f.repo(name, { "README.md": `# ${name}\n` });
    // Owned by nobody (65534); this test runs as root, which may give files away.
    await system("chown", "-R", "65534:65534", await make("theirs"));
    await system("chown", "-R", "65534:65534", await make("trusted"));
    await system("chown", "-R", "65534:65534", join(await make("gitdir"), ".git"));
    await system("chown", "-R", "65534:65534", join(await make("objects"), ".git", "objects"));
    await make("mine");
    const config = await t.config({
      // "theirs" first: checked before this process's user is known, so git's own check decides.
      repos: [
        { name: "theirs", path: "theirs", writable: true },
        { name: "trusted", path: "trusted", trust_other_owner: true },
        { name: "gitdir", path: "gitdir" },
        { name: "objects", path: "objects" },
        { name: "mine", path: "mine" },
      ],
    });
    const served = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      const other = /set trust_other_owner to serve it$/;
      await served.refused("git_log", { repo: "theirs" }, /its work tree belongs to another user \(uid 65534\)/);
      await served.refused("git_commit", { repo: "theirs", message: "m", paths: ["README.md"] }, other);
      await served.refused("git_status", { repo: "gitdir" }, /its git directory belongs to another user \(uid 65534\)/);
      await served.refused("git_show", { repo: "objects", rev: "HEAD" }, /its object store belongs to another user/);
      assert.match(await served.ok("git_log", { repo: "trusted" }), /first/);
      assert.match(await served.ok("git_log", { repo: "mine" }), /first/);
    } finally {
      assert.equal((await served.server.close()).code, 0);
    }
    const said = served.server.stderr().split("\n").filter((line) => line.startsWith("git: Cannot use repo"));
    assert.deepEqual(said.map((line) => line.match(/^git: Cannot use repo "([a-z]+)"/)?.[1]), [
      "theirs",
      "gitdir",
      "objects",
    ]);
    assert.ok(said.every((line) => /set trust_other_owner to serve it$/.test(line)), said.join("\n"));
    await t.f.end();
  },
});
