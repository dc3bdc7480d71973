// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { ConfigSchema } from "./config.ts";
import { fixture, writeCraftedIndex } from "./fixture.ts";
import { Git } from "./git.ts";
import { assertIndexNames, assertServedNames, nameProblem, statusPaths, SUSPECT_PATHSPECS } from "./index_names.ts";

// Every spelling git's verify_path refuses with core.protectNTFS and core.protectHFS on (but the empty name).
const REFUSED = [
  "../outside/secret",
  "a/../../outside/secret",
  "a/..",
  "/tmp/outside/secret",
  ".git/config",
  "sub/.GIT/config",
  "sub/.git",
  ".git",
  "./a",
  "a/./b",
  "a/.",
  ".",
  "..",
  "a//b",
  "dir/",
  ".git./config",
  ".git . /config",
  ".Git:stream/x",
  "git~1/config",
  "sub/GIT~1",
  "a\\.git\\config",
  "a\\git~1",
  ".g\u200Cit/config",
  "sub/\uFEFF.git",
  ".git\u200F",
  ".\u202Eg\u206Ait/x",
];
// Names git adds, some close to those above.
const SERVED = [
  "README.md",
  ".github/workflows/ci.yml",
  ".gitignore",
  "sub/.gitattributes",
  ".gitmodules",
  "dir/.gitkeep",
  ".git x",
  ".gitx",
  "git~2",
  "a..b",
  "...",
  "a/...",
  "x\\..\\y",
  "[.]",
  "notes\u200C.txt",
  "نام\u200Cها.txt",
];

Deno.test("nameProblem() refuses what git refuses to add to an index, on any file system, and nothing git adds", () => {
  for (const name of ["", ...REFUSED]) assert.notEqual(nameProblem(name), undefined, JSON.stringify(name));
  for (const name of SERVED) assert.equal(nameProblem(name), undefined, JSON.stringify(name));
  assert.equal(nameProblem("/etc/passwd"), "is absolute");
  // Bytes that are not UTF-8, as Deno decodes them: never looked up (a red team's finding).
  assert.equal(nameProblem("d\uFFFD/secret"), "is not UTF-8 (or holds U+FFFD), so this server cannot check it");
  assert.equal(nameProblem("a/../b"), 'has a ".." part');
  assert.equal(nameProblem("a//b"), 'has an empty or "." part');
  assert.equal(nameProblem("a/.GIT"), 'has a ".git" part');
  assert.equal(nameProblem(".g\u200Cit"), 'has a part that NTFS or HFS+ reads as ".git"');
});

Deno.test("SUSPECT_PATHSPECS make git list every name nameProblem() refuses but the empty one, and few others", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    await writeCraftedIndex(join(dir, ".git"), blob, ["", ...REFUSED, ...SERVED]);
    const listed = (await f.git(dir, "ls-files", "-z", "--", ...SUSPECT_PATHSPECS)).split("\0").slice(0, -1);
    assert.deepEqual(REFUSED.filter((name) => !listed.includes(name)), []);
    // Among those git adds, only those holding a backslash or a code point HFS+ ignores, and two matched as
    // spelled; nameProblem() passes them. The common dotfiles are not looked at.
    assert.deepEqual(listed.filter((name) => !REFUSED.includes(name)), [
      ".git x",
      "[.]",
      "notes\u200C.txt",
      "x\\..\\y",
      "نام\u200Cها.txt",
    ]);
    // The empty name is listed as "./" without a pathspec: the check of what git reports refuses it.
    assert.ok((await f.git(dir, "ls-files", "-z")).startsWith("./\0"));
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexNames() refuses an index listing such a name, in the same words whether the file exists", async () => {
  const f = await fixture();
  try {
    await Deno.mkdir(join(f.base, "outside"));
    await Deno.writeTextFile(join(f.base, "outside", "secret"), "secret\n");
    const names: Record<string, string> = {
      relative: "../outside/secret",
      missing: "../outside/missing",
      absolute: join(f.base, "outside", "secret"),
      absent: join(f.base, "outside", "missing"),
      dotgit: ".git/config",
      clean: "README.md",
    };
    const repos: { name: string; path: string }[] = [];
    for (const [name, listed] of Object.entries(names)) {
      const dir = await f.repo(name, { "README.md": "hi\n", ".github/ci.yml": "x\n", ".gitignore": "y\n" });
      const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
      if (name !== "clean") await writeCraftedIndex(join(dir, ".git"), blob, ["README.md", listed]);
      repos.push({ name, path: dir });
    }
    const git = await Git.open(ConfigSchema.parse({ repos }), f.base);
    const refusal = async (name: string) => {
      const err = await assertIndexNames(git, git.repo(name), {}).then(() => undefined, (err) => err);
      assert.ok(err instanceof PolicyError, `${name}: ${err}`);
      assert.equal(err.code, "outside-roots");
      return err.message.replaceAll(JSON.stringify(names[name]), "<name>").replaceAll(JSON.stringify(name), "<repo>");
    };
    assert.equal(
      await refusal("relative"),
      'Cannot read the index or work tree of repo <repo>: its index lists <name>, a name that has a ".." part ' +
        "(git refuses to add such a name, but opens it as it is when an index lists it)",
    );
    assert.equal(await refusal("relative"), await refusal("missing"));
    assert.equal(await refusal("absolute"), await refusal("absent"));
    assert.match(await refusal("absolute"), /a name that is absolute/);
    assert.match(await refusal("dotgit"), /a name that has a "\.git" part/);
    await assertIndexNames(git, git.repo("clean"), {});
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexNames() refuses an index with more names to look at than one answer holds", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    // Names git lists for a closer look that pass it: 100 of some 40 bytes, over the 1024 the config allows.
    const many = Array.from({ length: 100 }, (_, i) => `.git x/${String(i).padStart(30, "0")}`);
    await writeCraftedIndex(join(dir, ".git"), blob, ["README.md", ...many]);
    const git = await Git.open(
      ConfigSchema.parse({ repos: [{ name: "r", path: dir }], max_output_bytes: 1024 }),
      f.base,
    );
    await assert.rejects(
      assertIndexNames(git, git.repo("r"), {}),
      /its index lists more names that need a closer look .* than one answer holds$/,
    );
    await writeCraftedIndex(join(dir, ".git"), blob, ["README.md", ...many.slice(0, 10)]);
    await assertIndexNames(git, git.repo("r"), {});
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexNames() lists an index once while it is unchanged, and again once git or a hand rewrites it", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const gitDir = join(dir, ".git");
    const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    const config = ConfigSchema.parse({ repos: [{ name: "r", path: dir }] });
    let listings = 0;
    const onRun = (subcommand: string) => subcommand === "ls-files" && listings++;
    const git = await Git.open(config, f.base, { racyMs: 0, onRun });
    const check = () => assertIndexNames(git, git.repo("r"), {});
    await check();
    await check();
    assert.equal(listings, 1, "a clean index is listed once");
    // git writes a new index (a lock file renamed over it): a new inode.
    const before = (await Deno.stat(join(gitDir, "index"))).ino;
    await f.git(dir, "update-index", "--force-write-index");
    assert.notEqual((await Deno.stat(join(gitDir, "index"))).ino, before);
    await check();
    await check();
    assert.equal(listings, 2, "an index git rewrote is listed again, once");
    await f.git(dir, "config", "core.x", "y");
    await check();
    assert.equal(listings, 3, "a changed config lists the index again");
    // Written in place: the same inode, the very next call is refused, and so is every one after it.
    const ino = (await Deno.stat(join(gitDir, "index"))).ino;
    await writeCraftedIndex(gitDir, blob, ["README.md", "../outside/secret"]);
    assert.equal((await Deno.stat(join(gitDir, "index"))).ino, ino);
    await assert.rejects(check(), /its index lists "\.\.\/outside\/secret"/);
    await assert.rejects(check(), /its index lists "\.\.\/outside\/secret"/);
    assert.equal(listings, 5, "a refusal is never kept");
    // Gone, then clean again by git.
    await Deno.remove(join(gitDir, "index"));
    await check();
    await f.git(dir, "reset", "-q");
    await check();
    await check();
    assert.equal(listings, 7);
    // With the default racy interval, an index changed in the last seconds is listed on every call.
    let fresh = 0;
    const strict = await Git.open(config, f.base, { onRun: (subcommand) => subcommand === "ls-files" && fresh++ });
    await assertIndexNames(strict, strict.repo("r"), {});
    await assertIndexNames(strict, strict.repo("r"), {});
    assert.equal(fresh, 2);
  } finally {
    await f.end();
  }
});

Deno.test("Manager refuses every tool that reads the index or work tree of such a repository, and serves the rest", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "README.md": "hi\n" });
    await Deno.mkdir(join(f.base, "outside"));
    await Deno.writeTextFile(join(f.base, "outside", "secret"), "hi secret\n");
    const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    await writeCraftedIndex(join(dir, ".git"), blob, ["README.md", "../outside/secret"]);
    const mgr = f.manager({ w: dir });
    const reason = /its index lists "\.\.\/outside\/secret"/;
    await assert.rejects(mgr.status("w"), reason);
    await assert.rejects(mgr.diff("w"), reason);
    await assert.rejects(mgr.diff("w", "HEAD"), reason);
    await assert.rejects(mgr.diff("w", undefined, undefined, "README.md"), reason);
    await assert.rejects(mgr.grep("w", "secret"), reason);
    await assert.rejects(mgr.blame("w", "README.md"), reason);
    await assert.rejects(mgr.commit("w", "m", ["README.md"]), reason);
    assert.equal((await f.git(dir, "rev-list", "--count", "HEAD")).trim(), "1");
    assert.match((await mgr.log("w", {})).text, /first/);
    assert.equal((await mgr.show("w", "HEAD", "README.md")).text, "hi\n");
    assert.equal((await mgr.grep("w", "hi", "HEAD")).text, "HEAD:README.md:1:hi\n");
    assert.match((await mgr.blame("w", "README.md", "HEAD")).text, /hi/);
    assert.equal((await mgr.diff("w", "HEAD", "HEAD")).text, "");
  } finally {
    await f.end();
  }
});

Deno.test("Manager refuses a name git reports that no pathspec can find (an empty one), in status and diff", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "README.md": "hi\n" });
    // What git reports of a plain repository passes: an untracked folder (`dir/`), a quoted name.
    await Deno.mkdir(join(dir, "new folder"));
    await Deno.writeTextFile(join(dir, "new folder", "a.txt"), "a\n");
    await Deno.writeTextFile(join(dir, 'say "hi"\t.txt'), "b\n");
    assert.equal(
      (await f.manager({ r: dir }).status("r")).text,
      '## main\n?? "new folder/"\n?? "say \\"hi\\"\\t.txt"\n',
    );
    const blob = (await f.git(dir, "hash-object", "-w", "/dev/null")).trim();
    await writeCraftedIndex(join(dir, ".git"), blob, ["", "README.md"]);
    const mgr = f.manager({ r: dir });
    await assert.rejects(mgr.status("r"), /Cannot show the status of repo "r": git named "\.\/", a name that has an/);
    await assert.rejects(mgr.diff("r"), /Cannot show the diff of repo "r": git named "", a name that is empty/);
  } finally {
    await f.end();
  }
});

Deno.test("Manager refuses to show a name a commit's tree holds that is no work-tree path (grep, show, diff)", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "README.md": "hi\n" });
    const blob = (await f.git(dir, "hash-object", "-w", "README.md")).trim();
    // Tree objects git itself would not write (`git mktree` would, from stdin): `..` and `.git` folders.
    const tree = async (...entries: [string, string, string][]) => {
      const file = join(f.base, "tree");
      const bytes = entries.flatMap(([mode, name, id]) => [
        ...new TextEncoder().encode(`${mode} ${name}\0`),
        ...id.match(/../g)!.map((byte) => parseInt(byte, 16)),
      ]);
      await Deno.writeFile(file, new Uint8Array(bytes));
      return (await f.git(dir, "hash-object", "-t", "tree", "-w", "--literally", file)).trim();
    };
    const sub = await tree(["100644", "config", blob]);
    for (const name of ["..", ".git"]) {
      const top = await tree(["40000", name, sub], ["100644", "README.md", blob]);
      const commit = (await f.git(dir, "commit-tree", top, "-p", "HEAD", "-m", "crafted")).trim();
      const mgr = f.manager({ r: dir });
      const named = new RegExp(`git named "${name.replaceAll(".", "\\.")}/config"`);
      await assert.rejects(mgr.grep("r", "hi", commit), named);
      await assert.rejects(mgr.show("r", commit, undefined), named);
      await assert.rejects(mgr.diff("r", "HEAD", commit), named);
      assert.match((await mgr.grep("r", "hi", "HEAD")).text, /^HEAD:README\.md:1:hi$/m);
    }
  } finally {
    await f.end();
  }
});

Deno.test("assertServedNames() refuses the first name that is not a work-tree path, and passes the rest", () => {
  assertServedNames("app", "search", ["a.txt", ".github/ci.yml", "dir/.gitignore"]);
  assert.throws(
    () => assertServedNames("app", "search", ["a.txt", ".git/config", "/etc/passwd"]),
    {
      message: 'Cannot show the search of repo "app": git named ".git/config", a name that has a ".git" part',
    },
  );
});

Deno.test("statusPaths() reads git's quoting and renames, and leaves out the branch line and an unfinished line", () => {
  const out = [
    "## main...origin/main [different]",
    " M plain name.txt",
    '?? "tab\\there"',
    '?? "quote\\"\\\\back\\001"',
    "?? new folder/",
    " M tracked/",
    "?? caf\u00e9 -> not a rename",
    "R  old name -> new name",
    'R  "a\\nb" -> "c d\\"e"',
    " D ../cut",
  ].join("\n");
  assert.deepEqual(statusPaths(out), [
    "plain name.txt",
    "tab\there",
    'quote"\\back\x01',
    "new folder",
    "tracked/",
    "caf\u00e9 -> not a rename",
    "old name",
    "new name",
    "a\nb",
    'c d"e',
  ]);
  assert.deepEqual(statusPaths("## main\n"), []);
});
