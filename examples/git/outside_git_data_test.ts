// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// A repository is what its configured path holds: over real stdio, against
// the server started with exactly the flags it prints, repositories whose
// `.git` leads elsewhere (a `gitdir:` file, a link, `commondir`, alternates,
// a linked object store, a link deep inside: `refs/heads`, loose objects,
// `logs/HEAD`; a pointer whose bytes are not UTF-8 or that goes through a
// link before a `..`) or that another user
// owns are refused at start, before every run and after a reload, with one
// line that says why.
import assert from "node:assert/strict";
import { join } from "node:path";
import { assertRefused, serveUnderPrintedFlags, textOf } from "../served.ts";
import { SCRIPT } from "./_e2e.ts";
import { closeSharedServer, hostileTree, plainGit, sharedServer, system } from "./_hostile.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };

/**
 * The tests under the default config make their repositories in one tree, each under its own names, behind one
 * server ({@linkcode sharedServer}); the last of them closes it.
 */
const SHARED: Partial<Deno.TestDefinition> = { permissions: perms, sanitizeOps: false, sanitizeResources: false };
const inShared = sharedServer(SCRIPT);

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
    // commondir spelled `../x\xff`: read leniently as `../x\uFFFD`, a plain copy of the git directory passed the
    // checks, while git read the config of `x\xff`, whose clean filter ran on git_status and git_diff (a red team's
    // finding). Names made by sh, since Deno writes only UTF-8.
    const ran = join(t.f.base, "filter-ran");
    const undecodable = await t.f.repo("undecodable", {
      "README.md": "# undecodable\n",
      ".gitattributes": "* filter=a\n",
    });
    await system(
      "sh",
      "-c",
      'cd "$1" && cp -r .git "$(printf "x\\357\\277\\275")" && cp -r .git "$(printf "x\\377")" && ' +
        'printf "[filter \\"a\\"]\\n\\tclean = \\"echo ran >> %s; cat\\"\\n" "$2" >> "$(printf "x\\377")/config" && ' +
        'printf "../x\\377\\n" > .git/commondir && echo change >> README.md',
      "sh",
      undecodable,
      ran,
    );
    // commondir spelled `../lnk/../x`, `lnk` a link to a folder outside: a lexical reading checked `<repo>/x`, a plain
    // copy of the git directory, while git follows the link first and read the config of `x` beside its target,
    // whose clean filter ran on git_status, git_diff and git_log (a red team's finding).
    const dotdot = await t.f.repo("dotdot", { "README.md": "# dotdot\n", ".gitattributes": "* filter=a\n" });
    await system(
      "sh",
      "-c",
      'cd "$1" && mkdir -p ../elsewhere/sub && cp -r .git x && cp -r .git ../elsewhere/x && ' +
        'printf "[filter \\"a\\"]\\n\\tclean = \\"echo ran >> %s; cat\\"\\n" "$2" >> ../elsewhere/x/config && ' +
        'ln -s ../elsewhere/sub lnk && printf "../lnk/../x\\n" > .git/commondir && echo change >> README.md',
      "sh",
      dotdot,
      ran,
    );
    // What an unguarded server would do: plain git runs the filter.
    for (const repo of [undecodable, dotdot]) {
      await plainGit(repo, "diff");
      await Deno.remove(ran);
    }
    const app = await make("app");
    const hostile: [string, RegExp][] = [
      ["gitfile", /its git directory is not a folder inside its path$/],
      ["dotlink", /its git directory is not a folder inside its path$/],
      ["alternates", /its alternate object store is not a folder inside its path$/],
      ["relative", /its alternate object store is not a folder inside its path$/],
      ["commondir", /its common directory is not a folder inside its path$/],
      ["dotdot", /its common directory is not a folder inside its path$/],
      ["objlink", /its object store is not a folder inside its path$/],
      ["web", /its object store names http-alternates$/],
      [
        "undecodable",
        /the path to its common directory is not UTF-8 \(or holds U\+FFFD\), which this server cannot check$/,
      ],
    ];
    const repos = [
      ...hostile.map(([name]) => ({ name, path: name, writable: true })),
      // The control: the same alternates, allowed by name, are served.
      { name: "shared", path: "shared", allow_outside: [join(privateGit, "objects")] },
      { name: "app", path: "app" },
    ];
    const config = await t.config({ repos });
    const commits = await t.f.git(t.private, "rev-list", "--count", "--all");
    const restart = new RegExp(
      '^Cannot use repo "out": its folder is in the config but outside what this process was started with; ' +
        "restart the server with the flags from --print-permissions$",
    );
    const served = await serveUnderPrintedFlags(SCRIPT, config);
    try {
      for (const [name, reason] of hostile) {
        for (const [tool, args] of everyTool(name, t.privateHead)) {
          const result = await served.call(tool, args);
          assertRefused(result, new RegExp(`^Cannot use repo "${name}": ${reason.source}`), `${tool} ${name}`);
          assert.ok(!textOf(result).includes(t.canary));
        }
      }
      assert.equal(
        await t.f.git(t.private, "rev-list", "--count", "--all"),
        commits,
        "a commit reached the private repo",
      );
      assert.equal(await Deno.lstat(ran).then(() => "ran", () => "never ran"), "never ran", "the clean filter ran");
      const control = await served.ok("git_show", { repo: "shared", rev: t.privateHead });
      assert.ok(
        control.includes(t.canary),
        "the alternates do not reach the private repository: this test proves nothing",
      );
      assert.match(await served.ok("git_log", { repo: "app" }), /first/);
      // Made hostile while the server runs: refused at the very next run.
      await Deno.writeTextFile(join(app, ".git/objects/info/alternates"), `${privateGit}/objects\n`);
      await served.refused("git_log", { repo: "app" }, /^Cannot use repo "app": its alternate object store is not/);
      // A reload checks every repository again and says so; one it adds outside the start-up flags needs a restart.
      const reloaded = [...repos, { name: "out", path: t.private }];
      await t.config({ repos: reloaded, timeout_ms: 20_000 });
      await served.refused("git_status", { repo: "app" }, /alternate object store/);
      await served.refused("git_log", { repo: "out" }, restart);
      // The programs are fixed at start: a version that swaps git and kill is not used.
      await t.config({ repos: [], timeout_ms: 20_000, git: "/usr/bin/kill", kill: "/usr/bin/git" });
      await served.refused("git_log", { repo: "out" }, restart);
      await served.server.waitForStderr('it changes git from "/usr/bin/git" to "/usr/bin/kill", which needs a restart');
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
    assert.deepEqual(
      said.filter((line) => line.includes('"out"')).map((line) => restart.test(line.slice("git: ".length))),
      [true],
    );
    assert.ok(!said.some((line) => line.includes('"shared"')));
    await t.f.end();
  },
});

/** The private repository's loose objects, each linked into a real fanout folder of `repo`'s store. */
async function linkObjects(privateGit: string, repo: string): Promise<void> {
  for await (const fanout of Deno.readDir(join(privateGit, "objects"))) {
    if (!/^[0-9a-f]{2}$/.test(fanout.name)) continue;
    const [from, to] = [join(privateGit, "objects", fanout.name), join(repo, ".git", "objects", fanout.name)];
    await Deno.mkdir(to, { recursive: true });
    for await (const object of Deno.readDir(from)) await system("ln", "-sf", join(from, object.name), to);
  }
}

const deepLinks = inShared(["linked-branches", "linked-objects"], async (t) => {
  const privateGit = join(t.private, ".git");
  const branches = await t.f.repo("linked-branches", { "README.md": "# branches\n" });
  await Deno.remove(join(branches, ".git", "refs", "heads"), { recursive: true });
  await system("ln", "-s", join(privateGit, "refs", "heads"), join(branches, ".git", "refs", "heads"));
  await linkObjects(privateGit, branches);
  const objects = await t.f.repo("linked-objects", { "README.md": "# objects\n" });
  await linkObjects(privateGit, objects);
});

Deno.test({
  name:
    "a link deep in the git data (refs/heads, loose objects in a real fanout folder) serves no other repository's history: git_log and git_show refuse",
  ...SHARED,
  async fn() {
    const { t, served } = await deepLinks();
    const [branches, objects] = ["linked-branches", "linked-objects"].map((name) => join(t.f.base, name));
    // What an unguarded server would show.
    assert.ok((await plainGit(branches, "log", "main")).includes(t.canary));
    assert.ok((await plainGit(branches, "show", "main:secret.txt")).includes(t.canary));
    assert.ok((await plainGit(objects, "show", `${t.privateHead}:secret.txt`)).includes(t.canary));
    // "linked-branches" holds both kinds of link: whichever the walk meets first is named.
    const both =
      /its (?:git directory holds a link "refs\/heads"|object store holds a link "[0-9a-f]{2}\/[0-9a-f]{38}")/;
    const objectLink = /its object store holds a link "[0-9a-f]{2}\/[0-9a-f]{38}"/;
    const attacks: [string, Record<string, unknown>, RegExp][] = [
      ["git_log", { repo: "linked-branches", ref: "main" }, both],
      ["git_show", { repo: "linked-branches", rev: "main", path: "secret.txt" }, both],
      ["git_show", { repo: "linked-objects", rev: t.privateHead }, objectLink],
      ["git_log", { repo: "linked-objects", ref: t.privateHead }, objectLink],
    ];
    for (const [tool, args, reason] of attacks) {
      const text = textOf(await served.call(tool, args));
      assert.ok(!text.includes(t.canary), `${tool} ${JSON.stringify(args)}: ${text}`);
      assert.match(
        text,
        new RegExp(`^Cannot use repo "${args.repo}": ${reason.source} that leads outside its path$`),
      );
    }
  },
});

Deno.test({
  name:
    "git_commit writes nothing outside through a link under .git/logs or .git/refs: the file a reflog or branch link leads to is unchanged",
  permissions: perms,
  async fn() {
    const t = await hostileTree();
    const outside = join(t.f.base, "outside");
    const victim = join(outside, "victim.txt");
    const keys = join(outside, "ssh", "authorized_keys");
    await Deno.mkdir(join(outside, "refs"));
    await Deno.mkdir(join(outside, "ssh"));
    await Deno.writeTextFile(victim, "victim\n");
    await Deno.writeTextFile(keys, "ssh-ed25519 AAAA legit@host\n");
    /** A repository with one change to commit, whose `.git/<link>` leads to `target`. */
    const hostile = async (name: string, link: string, target: string, branch = "main") => {
      const dir = await t.f.repo(name, { "README.md": `# ${name}\n` });
      await t.f.git(dir, "branch", "-m", branch);
      if (link === "refs/heads") {
        await Deno.copyFile(join(dir, ".git", "refs", "heads", branch), join(target, branch));
      }
      await Deno.remove(join(dir, ".git", link), { recursive: true });
      await system("ln", "-s", target, join(dir, ".git", link));
      await Deno.writeTextFile(join(dir, "new.txt"), "change\n");
      return dir;
    };
    await hostile("reflog", "logs/HEAD", victim);
    await hostile("branches", "refs/heads", join(outside, "refs"));
    await hostile("keys", "logs/refs/heads", join(outside, "ssh"), "authorized_keys");
    const before = async () => [
      await Deno.readTextFile(victim),
      await Deno.readTextFile(join(outside, "refs", "main")),
      await Deno.readTextFile(keys),
      [...Deno.readDirSync(join(outside, "refs"))].length,
    ];
    const was = await before();
    // What an unguarded server would do: plain git appends to the link's target (a copy of "keys", to a copy of its target).
    await system("cp", "-a", join(outside, "ssh"), join(t.f.base, "ssh-copy"));
    const copy = await hostile("copy", "logs/refs/heads", join(t.f.base, "ssh-copy"), "authorized_keys");
    await plainGit(copy, "add", "new.txt");
    await plainGit(copy, "-c", "user.name=p", "-c", "user.email=p@p", "commit", "-qm", "m");
    assert.notEqual(await Deno.readTextFile(join(t.f.base, "ssh-copy", "authorized_keys")), was[2]);
    const repos = ["reflog", "branches", "keys"].map((name) => ({ name, path: name, writable: true }));
    const served = await serveUnderPrintedFlags(SCRIPT, await t.config({ repos }));
    try {
      const refusals: [string, string][] = [["reflog", "logs/HEAD"], ["branches", "refs/heads"], [
        "keys",
        "logs/refs/heads",
      ]];
      for (const [repo, link] of refusals) {
        await served.refused(
          "git_commit",
          { repo, message: "m", paths: ["new.txt"] },
          new RegExp(
            `^Cannot use repo "${repo}": its git directory holds a link "${link}" that leads outside its path$`,
          ),
        );
      }
    } finally {
      assert.equal((await served.server.close()).code, 0);
    }
    assert.deepEqual(await before(), was, "a file outside changed");
    await t.f.end();
  },
});

const notUtf8Names = inShared(["worktree", "gitdata"], async (t) => {
  // hostileTree() made outside/secret, which holds the canary.
  const outside = join(t.f.base, "outside");
  await Deno.writeTextFile(join(outside, "authorized_keys"), "ssh-ed25519 AAAA legit@host\n");
  // Deno reads the byte 0xff of a name as U+FFFD, which names no file: each check that looked the name up passed,
  // while git opened the real bytes (a red team's finding). Names made by sh, since Deno writes only UTF-8.
  const worktree = await t.f.repo("worktree", { "README.md": "# w\n" });
  await system(
    "sh",
    "-c",
    'cd "$1" && D=$(printf "d\\377") && F=$(printf "h\\377.txt") && mkdir "$D" && echo decoy > "$D/secret" && ' +
      'echo old > "$F" && git add . && git -c user.name=p -c user.email=p@p commit -qm names && ' +
      'rm -r "$D" && ln -s "$2" "$D" && rm "$F" && ln "$2/secret" "$F"',
    "sh",
    worktree,
    outside,
  );
  const gitdata = await t.f.repo("gitdata", { "README.md": "# g\n" });
  await system(
    "sh",
    "-c",
    'cd "$1" && F=$(printf "f\\377") && mkdir -p ".git/refs/heads/$F" ".git/logs/refs/heads/$F" && ' +
      'git rev-parse HEAD > ".git/refs/heads/$F/main" && printf "ref: refs/heads/%s/main\\n" "$F" > .git/HEAD && ' +
      'ln -s "$2/authorized_keys" ".git/logs/refs/heads/$F/main" && echo change >> README.md',
    "sh",
    gitdata,
    outside,
  );
}, true);

Deno.test({
  name:
    "names that are not UTF-8 hide nothing: a linked folder or hard link in the work tree and a link in the git data under such a name are refused, nothing outside read or written",
  ...SHARED,
  async fn() {
    const { t, served } = await notUtf8Names();
    const outside = join(t.f.base, "outside");
    const notUtf8 = /is not UTF-8 \(or holds U\+FFFD\)/;
    await served.refused("git_grep", { repo: "worktree", pattern: "CANARY" }, notUtf8);
    await served.refused("git_diff", { repo: "worktree" }, notUtf8);
    await served.refused("git_status", { repo: "worktree" }, notUtf8);
    for (const tool of ["git_log", "git_status"]) await served.refused(tool, { repo: "gitdata" }, notUtf8);
    await served.refused(
      "git_commit",
      { repo: "gitdata", message: "ssh-ed25519 ATTACKER", paths: ["README.md"] },
      notUtf8,
    );
    assert.equal(await Deno.readTextFile(join(outside, "authorized_keys")), "ssh-ed25519 AAAA legit@host\n");
  },
});

closeSharedServer(notUtf8Names, SHARED);

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
