// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { basename, join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { fixture } from "./fixture.ts";
import { ConfigSchema } from "./config.ts";
import { Manager } from "./manager.ts";

const refused = (code?: string) => (err: unknown) => {
  assert.ok(err instanceof PolicyError, String(err));
  if (code !== undefined) assert.equal(err.code, code);
  return true;
};

Deno.test("Manager refuses a revision that is an option, for every revision argument, and writes nothing", async () => {
  const f = await fixture();
  try {
    const mgr = f.manager({ r: await f.repo("r") });
    const target = join(f.base, "x");
    for (const rev of [`--output=${target}`, "-p", "HEAD:../x", "a b"]) {
      await assert.rejects(mgr.log("r", { ref: rev }), refused("invalid-input"));
      await assert.rejects(mgr.show("r", rev, undefined), refused("invalid-input"));
      await assert.rejects(mgr.diff("r", rev), refused("invalid-input"));
      await assert.rejects(mgr.diff("r", "HEAD", rev), refused("invalid-input"));
      await assert.rejects(mgr.grep("r", "x", rev), refused("invalid-input"));
      await assert.rejects(mgr.blame("r", "README.md", rev), refused("invalid-input"));
    }
    await assert.rejects(Deno.stat(target), Deno.errors.NotFound);
  } finally {
    await f.end();
  }
});

Deno.test("Manager refuses paths that leave the work tree or enter .git, for every path argument", async () => {
  const f = await fixture();
  try {
    const mgr = f.manager({ w: await f.repo("w") });
    for (const path of ["../../etc/passwd", "/etc/passwd", ".git/config", "a/../../x", "sub/.GIT/HEAD"]) {
      await assert.rejects(mgr.log("w", { path }), refused());
      await assert.rejects(mgr.show("w", "HEAD", path), refused());
      await assert.rejects(mgr.diff("w", undefined, undefined, path), refused());
      await assert.rejects(mgr.grep("w", "x", undefined, path), refused());
      await assert.rejects(mgr.blame("w", path), refused());
      await assert.rejects(mgr.commit("w", "m", [path]), refused());
    }
  } finally {
    await f.end();
  }
});

Deno.test("Manager refuses a repository that is not configured, and commits only to writable ones", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const mgr = f.manager({ r: dir });
    await assert.rejects(mgr.status("other"), refused("outside-roots"));
    await assert.rejects(mgr.status(dir), refused("outside-roots"));
    await Deno.writeTextFile(join(dir, "README.md"), "changed\n");
    await assert.rejects(mgr.commit("r", "m", ["README.md"]), refused("no-permission"));
    assert.equal((await f.git(dir, "rev-list", "--count", "HEAD")).trim(), "1");
  } finally {
    await f.end();
  }
});

Deno.test("Manager never follows a symbolic link out of the work tree", async () => {
  const f = await fixture();
  try {
    const outside = join(f.base, "outside");
    await Deno.mkdir(outside);
    const canary = `CANARY-${crypto.randomUUID()}`;
    await Deno.writeTextFile(join(outside, "canary.txt"), `${canary}\n`);
    const dir = await f.repo("w", { "README.md": "hi\n" });
    // Links made by git itself: the test's permissions cannot make one.
    await f.git(
      dir,
      "update-index",
      "--add",
      "--cacheinfo",
      `120000,${await blob(f, dir, join(outside, "canary.txt"))},leak`,
    );
    await f.git(dir, "update-index", "--add", "--cacheinfo", `120000,${await blob(f, dir, outside)},linkdir`);
    await f.git(dir, "commit", "-q", "-m", "links");
    await f.git(dir, "checkout", "-q", "--", "leak", "linkdir");
    assert.ok((await Deno.lstat(join(dir, "leak"))).isSymlink);
    const mgr = f.manager({ w: dir });
    const texts = [
      (await mgr.grep("w", "CANARY")).text,
      (await mgr.grep("w", "CANARY", "HEAD")).text,
      (await mgr.show("w", "HEAD", "leak")).text,
      (await mgr.blame("w", "leak")).text,
      (await mgr.diff("w", "HEAD~1")).text,
    ];
    for (const text of texts) assert.ok(!text.includes(canary), text);
    await assert.rejects(mgr.blame("w", "linkdir/canary.txt"), refused("symlink-escape"));
    await assert.rejects(mgr.commit("w", "m", ["linkdir/canary.txt"]), refused("symlink-escape"));
    await assert.rejects(mgr.log("w", { path: "linkdir/canary.txt" }), refused("symlink-escape"));
  } finally {
    await f.end();
  }
});

async function blob(f: Awaited<ReturnType<typeof fixture>>, dir: string, target: string): Promise<string> {
  const file = join(f.base, `link-${crypto.randomUUID()}`);
  await Deno.writeTextFile(file, target);
  return (await f.git(dir, "hash-object", "-w", "--no-filters", file)).trim();
}

Deno.test("git_grep with a pattern catastrophic for backtracking is stopped at the deadline", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "a.txt": `${"a".repeat(200)}c\n` });
    // git spins on the pattern until stopped: each millisecond of deadline is one of CPU, so a short one.
    const mgr = f.manager({ r: dir }, { timeout_ms: 300 });
    const started = Date.now();
    await assert.rejects(mgr.grep("r", "(a*)*\\1\\1c$"), /ran past its deadline and was stopped/);
    assert.ok(Date.now() - started < 15_000, `took ${Date.now() - started} ms`);
  } finally {
    await f.end();
  }
});

Deno.test("git_log of 100 MiB of history is cut at the output cap, marked, and stopped", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const message = join(f.base, "message");
    const line = new TextEncoder().encode(`${"x".repeat(1023)}\n`);
    const file = await Deno.open(message, { write: true, create: true });
    const chunk = new Uint8Array(1024 * 1024);
    for (let i = 0; i < chunk.length; i += line.length) chunk.set(line, i);
    // Two commits of 50 MiB each: one message over GIT_ALLOC_LIMIT (64 MiB) is refused instead (hostile_config_test.ts).
    for (let i = 0; i < 50; i++) await file.write(chunk);
    file.close();
    const tree = (await f.git(dir, "rev-parse", "HEAD^{tree}")).trim();
    let commit = "HEAD";
    for (let i = 0; i < 2; i++) commit = (await f.git(dir, "commit-tree", tree, "-p", commit, "-F", message)).trim();
    await f.git(dir, "update-ref", "refs/heads/main", commit);
    const mgr = f.manager({ r: dir }, { max_output_bytes: 1024 * 1024 });
    const started = Date.now();
    const out = await mgr.log("r", { maxCount: 2 });
    assert.equal(out.cut, true);
    assert.equal(out.marker, "[truncated: showed the first 1048576 bytes]");
    assert.ok(out.text.length <= 1024 * 1024);
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  } finally {
    await f.end();
  }
});

Deno.test("git_commit commits exactly the named paths, new and deleted ones included, and leaves other changes", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "a.txt": "a\n", "b.txt": "b\n", "gone.txt": "g\n" });
    const mgr = f.manager({ w: dir });
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    await Deno.writeTextFile(join(dir, "b.txt"), "b2\n");
    await Deno.writeTextFile(join(dir, "new.txt"), "n\n");
    await Deno.remove(join(dir, "gone.txt"));
    const outcome = await mgr.commit("w", "-m starts with a dash", ["a.txt", "./new.txt", "gone.txt"]);
    assert.deepEqual(outcome.paths, ["a.txt", "new.txt", "gone.txt"]);
    const changed = await f.git(dir, "show", "--name-status", "--format=%s", "HEAD");
    assert.equal(changed.trim(), "-m starts with a dash\n\nM\ta.txt\nD\tgone.txt\nA\tnew.txt");
    assert.match(await f.git(dir, "status", "--porcelain"), /^ M b\.txt$/m);
  } finally {
    await f.end();
  }
});

Deno.test("two git_commit calls at once in one repository both land, one after the other", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "a.txt": "a\n", "b.txt": "b\n" });
    const mgr = f.manager({ w: dir });
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    await Deno.writeTextFile(join(dir, "b.txt"), "b2\n");
    const [one, two] = await Promise.all([mgr.commit("w", "one", ["a.txt"]), mgr.commit("w", "two", ["b.txt"])]);
    assert.notEqual(one.commit, two.commit);
    assert.equal((await f.git(dir, "rev-list", "--count", "HEAD")).trim(), "3");
  } finally {
    await f.end();
  }
});

Deno.test("git_grep of the work tree refuses, naming a path to use, when the files to leave out would not fit git's arguments", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    // 2,100 tracked files over 1 MiB in the work tree (sparse, so cheap), and one over 64 MiB that stops
    // the first search at GIT_ALLOC_LIMIT; their ":(exclude,literal)" arguments take over 512 KiB.
    const empty = (await f.git(dir, "hash-object", "-w", "--stdin")).trim();
    const names = ["0big", ...Array.from({ length: 2_100 }, (_, i) => `${"n".repeat(230)}${i}`)];
    for (const [i, name] of names.entries()) {
      using file = await Deno.open(join(dir, name), { write: true, create: true });
      await file.truncate(i === 0 ? 65 * 1024 * 1024 : 2 * 1024 * 1024);
    }
    const info = names.map((name) => `100644 ${empty}\t${name}\n`).join("");
    const child = new Deno.Command("/usr/bin/git", {
      args: ["update-index", "--add", "--index-info"],
      cwd: dir,
      stdin: "piped",
      env: { GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", PATH: "/usr/bin:/bin" },
      clearEnv: true,
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(info));
    await writer.close();
    assert.ok((await child.output()).success);
    const mgr = f.manager({ r: dir });
    await assert.rejects(
      mgr.grep("r", "needle"),
      (err: unknown) =>
        err instanceof PolicyError &&
        /^Cannot search repo "r": 2101 tracked files are over 1048576 bytes in the work tree, too many to leave out of one search; name a path$/
          .test(err.message),
    );
  } finally {
    await f.end();
  }
});

Deno.test("a git_commit cancelled while git add holds the index lock leaves no lock behind, and git commit writes no second copy of a big file: the next commits land", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "a.txt": "a\n" });
    const gitDir = join(dir, ".git");
    // 32 MiB of random bytes, over core.bigFileThreshold: git add deflates them into a temporary pack, about a
    // second of CPU, holding the index lock all along (its 1 MiB repeats lie beyond deflate's window).
    const chunk = new Uint8Array(1024 * 1024);
    for (let at = 0; at < chunk.length; at += 65_536) crypto.getRandomValues(chunk.subarray(at, at + 65_536));
    await using big = await Deno.open(join(dir, "big.bin"), { write: true, create: true });
    for (let i = 0; i < 32; i++) await big.write(chunk);
    await Deno.writeTextFile(join(dir, "a.txt"), "a2\n");
    const mgr = f.manager({ w: dir });
    // The cancellation comes while git add holds the lock (the reads before it take none: GIT_OPTIONAL_LOCKS=0),
    // once it streams big.bin into a temporary pack. Not at the lock's creation: git 2.39 creates the lock file and
    // only then sets the handler that removes it on SIGTERM, and a cancel landing in between (seen under load) left
    // it, a window of a few instructions the server cannot see.
    const watcher = Deno.watchFs(join(gitDir, "objects", "pack"), { recursive: false });
    const packing = (async () => {
      for await (const event of watcher) {
        if (event.kind === "create" && event.paths.some((path) => basename(path).startsWith("tmp_pack_"))) {
          return "packing";
        }
      }
      return "unwatched";
    })();
    const controller = new AbortController();
    const commit = mgr.commit("w", "big", ["big.bin"], controller.signal);
    const first = await Promise.race([packing, commit.then(() => "committed", (err) => String(err))]);
    const lockHeld = await Deno.lstat(join(gitDir, "index.lock")).then(() => true, () => false);
    controller.abort();
    watcher.close();
    assert.deepEqual([first, lockHeld], ["packing", true]);
    await assert.rejects(commit, /^PolicyError: Cannot run git add in repo "w": the call was cancelled$/);
    // git removes its lock on SIGTERM; a SIGKILL leaves it, and every later commit then fails on it. (git 2.39
    // leaves its partial objects/pack/tmp_pack_* either way: no git reads it, and git gc removes it.)
    await assert.rejects(Deno.lstat(join(gitDir, "index.lock")), Deno.errors.NotFound);
    // Committed whole: git add streams big.bin into one temporary pack (renamed into place once done), and git commit,
    // which hashes each named file again, streamed a second copy (dropped once it found the blob stored) that a stop
    // at that moment left behind. Under the commit's own threshold it looks the blob up and writes none.
    const packs = Deno.watchFs(join(gitDir, "objects", "pack"), { recursive: false });
    const temporary = new Set<string>();
    const watched = (async () => {
      for await (const event of packs) {
        for (const name of event.paths.map((path) => basename(path))) {
          if (event.kind === "create" && name.startsWith("tmp_pack_")) temporary.add(name);
        }
      }
    })();
    await mgr.commit("w", "big", ["big.bin"]);
    packs.close();
    await watched;
    assert.equal(temporary.size, 1, [...temporary].join(" "));
    await mgr.commit("w", "small", ["a.txt"]);
    assert.equal((await f.git(dir, "log", "--format=%s")).trim(), "small\nbig\nfirst");
  } finally {
    await f.end();
  }
});

Deno.test("git_commit never commits the server's own files in a writable repository, and no tool reads them from the work tree", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("w", { "README.md": "# hi\n", "state.json": "committed\n" });
    const [config, audit, tenant, state] = ["git.json", "logs/audit.jsonl", "tenant.json", "state.json"]
      .map((path) => join(dir, path));
    await Deno.writeTextFile(config, '{"repos": []}\n');
    await Deno.mkdir(join(dir, "logs"));
    await Deno.writeTextFile(audit, '{"event":"intent"}\n');
    await Deno.link(config, join(dir, "copy.json"));
    // Hard links are served here: the second name of the config is refused as the config itself.
    const mgr = f.manager({ w: dir }, { allow_hard_links: true }, { ownFiles: [config, audit, tenant, state] });
    // Looked for at each call: made after the Manager was.
    await Deno.writeTextFile(tenant, "{}\n");
    const [index, head] = [await f.git(dir, "ls-files", "--stage"), await f.git(dir, "rev-parse", "HEAD")];
    for (
      const [paths, shown] of [
        [["git.json"], "git.json"],
        [["README.md", "./logs/audit.jsonl"], "logs/audit.jsonl"],
        [["logs"], "logs/audit.jsonl"],
        [["copy.json"], "copy.json"],
        [["tenant.json"], "tenant.json"],
      ] as [string[], string][]
    ) {
      await assert.rejects(
        mgr.commit("w", "take it", paths),
        (err: unknown) =>
          refused("denied-by-glob")(err) &&
          (err as Error).message === `Cannot commit "${shown}" in repo "w": the policy denies this path`,
      );
    }
    assert.equal(await f.git(dir, "ls-files", "--stage"), index, "the index changed");
    assert.equal(await f.git(dir, "rev-parse", "HEAD"), head);
    // A tracked own file: what the work tree holds now is read by no tool; what was committed stays history.
    await Deno.writeTextFile(state, "LIVE\n");
    const reading = /^PolicyError: Cannot read "state\.json" in repo "w": the policy denies this path$/;
    await assert.rejects(mgr.grep("w", "LIVE"), reading);
    await assert.rejects(mgr.diff("w"), reading);
    await assert.rejects(mgr.diff("w", "HEAD"), reading);
    await assert.rejects(mgr.blame("w", "state.json"), reading);
    await assert.rejects(mgr.commit("w", "m", ["state.json"]), /^PolicyError: Cannot commit "state\.json" in repo/);
    assert.equal((await mgr.show("w", "HEAD", "state.json")).text, "committed\n");
    assert.match((await mgr.blame("w", "state.json", "HEAD")).text, /committed/);
    await Deno.writeTextFile(join(dir, "README.md"), "# changed\n");
    assert.deepEqual((await mgr.commit("w", "m", ["README.md"])).paths, ["README.md"]);
  } finally {
    await f.end();
  }
});

const FORGED_NOTE = 'Not diffed: "secret.txt" is over 1048576 bytes, the most this server lets git read of one file';

Deno.test("git_show and git_diff cut at the cap keep a left-out file's note and the marker apart from git's output", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    // A diff of long lines, cut inside one, and a file over the diff limit left out of it.
    await Deno.writeTextFile(join(dir, "long.txt"), `${"y".repeat(3000)}\n`);
    await Deno.writeTextFile(join(dir, "big.txt"), "z".repeat(1024 * 1024 + 1));
    await f.git(dir, "add", "long.txt", "big.txt");
    // A message that prints what the server's note says: in git's output, where it cannot pass for the note.
    await f.git(dir, "commit", "-q", "-m", "long and big", "-m", FORGED_NOTE);
    const mgr = f.manager({ r: dir }, { max_output_bytes: 1024 });
    for (
      const [tool, out] of [["show", await mgr.show("r", "HEAD", undefined)], [
        "diff",
        await mgr.diff("r", "HEAD~1", "HEAD"),
      ]] as const
    ) {
      assert.equal(out.cut, true, tool);
      assert.equal(out.marker, "[truncated: showed the first 1024 bytes]", tool);
      // git's output ends where the cut fell, with nothing of the server's after it: the note is apart.
      assert.equal(out.text, out.stdout, tool);
      if (tool === "show") assert.ok(out.text.includes(FORGED_NOTE), "the commit message is in git's output");
      assert.equal(
        out.notes,
        `Not diffed: "big.txt" is over 1048576 bytes, the most this server lets git read of one file in a diff\n`,
        tool,
      );
    }
  } finally {
    await f.end();
  }
});

Deno.test("git_status and git_grep cut at the cap leave out the line it fell inside, and the marker counts only what is shown", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    // Names of 70 characters: neither output ends on a line break at 1,024 bytes.
    for (let i = 0; i < 40; i++) {
      await Deno.writeTextFile(join(dir, `needle-${String(i).padStart(2, "0")}-${"n".repeat(60)}.txt`), "a needle\n");
    }
    const mgr = f.manager({ r: dir }, { max_output_bytes: 1024 });
    const status = await mgr.status("r");
    await f.git(dir, "add", ".");
    const grep = await mgr.grep("r", "needle");
    for (const [tool, out] of [["status", status], ["grep", grep]] as const) {
      assert.equal(out.cut, true, tool);
      assert.ok(out.text.endsWith("\n"), `${tool}: whole lines only`);
      const shown = new TextEncoder().encode(out.text).length;
      assert.ok(shown < 1024, `${tool}: the line the cap fell inside is left out`);
      assert.equal(out.marker, `[truncated: showed the first ${shown} bytes]`, tool);
    }
  } finally {
    await f.end();
  }
});

Deno.test(
  "Manager gives a commit one config version: one reloaded while it is checked never commits where the new version made the name read-only",
  async () => {
    const f = await fixture();
    try {
      // a serves "w" writable from one work tree; b serves the name from another, read-only.
      const [first, second] = [await f.repo("one"), await f.repo("two")];
      const a = ConfigSchema.parse({ repos: [{ name: "w", path: first, writable: true }] });
      const b = ConfigSchema.parse({ repos: [{ name: "w", path: second, writable: false }] });
      for (const dir of [first, second]) await Deno.writeTextFile(join(dir, "README.md"), "# changed\n");
      // The call reads a first, and the reload lands before it reads the config again.
      const versions = [a];
      const mgr = new Manager(() => Promise.resolve(versions.shift() ?? b), undefined);
      await mgr.commit("w", "m", ["README.md"]).catch(() => {});
      // Under a, the commit lands in the first tree; under b, nowhere. Never in the second tree.
      assert.equal((await f.git(second, "rev-list", "--count", "HEAD")).trim(), "1");
      assert.equal((await f.git(second, "status", "--porcelain")).trim(), "M README.md");
    } finally {
      await f.end();
    }
  },
);
