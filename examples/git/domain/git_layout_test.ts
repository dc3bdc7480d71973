// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/ln,/usr/bin/mkfifo
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { type Fixture, fixture } from "./fixture.ts";
import { GitDataCache } from "./git_data_cache.ts";
import { gitLayout, MAX_GIT_DATA_DEPTH } from "./git_layout.ts";

async function ln(target: string, path: string): Promise<void> {
  const out = await new Deno.Command("/usr/bin/ln", { args: ["-s", target, path] }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

const refusedFor = (what: RegExp) => (err: unknown) => {
  assert.ok(err instanceof PolicyError && err.code === "outside-roots", String(err));
  assert.match(err.message, what);
  return true;
};

/** A repository "r" and an outside one "o", both with one commit (of objects "r" does not hold). */
async function pair(f: Fixture): Promise<{ r: string; o: string }> {
  return { r: await f.repo("r"), o: await f.repo("o", { "secret.txt": "private\n" }) };
}

/** A test body run on a fresh fixture's pair of repositories, the fixture removed after it. */
function withPair(body: (p: { f: Fixture; r: string; o: string }) => Promise<void>): () => Promise<void> {
  return async () => {
    const f = await fixture();
    try {
      await body({ f, ...await pair(f) });
    } finally {
      await f.end();
    }
  };
}

Deno.test("gitLayout() names the git, common and object folders of a plain repository", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r");
    assert.deepEqual(await gitLayout("r", r), {
      gitDir: join(r, ".git"),
      commonDir: join(r, ".git"),
      objectStores: [join(r, ".git", "objects")],
    });
  } finally {
    await f.end();
  }
});

Deno.test(
  "gitLayout() refuses a .git file or link, commondir, objects link or alternates that leave the path",
  withPair(async ({ f, r, o }) => {
    const dotGit = join(r, ".git");
    const attempts: [string, () => Promise<void>, RegExp][] = [
      ["gitdir file", () => swap(dotGit, () => Deno.writeTextFile(dotGit, `gitdir: ${o}/.git\n`)), /git directory/],
      [
        "relative gitdir file",
        () => swap(dotGit, () => Deno.writeTextFile(dotGit, "gitdir: ../o/.git")),
        /git directory/,
      ],
      [".git link", () => swap(dotGit, () => ln(join(o, ".git"), dotGit)), /git directory/],
      ["commondir", () => Deno.writeTextFile(join(dotGit, "commondir"), "../../o/.git\n"), /common directory/],
      [
        "objects link",
        () => swap(join(dotGit, "objects"), () => ln(join(o, ".git/objects"), join(dotGit, "objects"))),
        /object store/,
      ],
      [
        "alternates",
        () => Deno.writeTextFile(join(dotGit, "objects/info/alternates"), `${o}/.git/objects\n`),
        /alternate/,
      ],
      [
        "quoted alternates",
        () => Deno.writeTextFile(join(dotGit, "objects/info/alternates"), `"${r}/x"\n`),
        /alternate/,
      ],
      [
        "http-alternates",
        () => Deno.writeTextFile(join(dotGit, "objects/info/http-alternates"), "https://e.x/o\n"),
        /http-alternates/,
      ],
      [
        "a pack that is a link",
        () => ln(join(o, "README.md"), join(dotGit, "objects/pack/pack-x.pack")),
        /its object store holds a link "pack\/pack-x.pack" that leads outside its path$/,
      ],
      ["a dangling link", () => ln(join(f.base, "nowhere"), join(dotGit, "packed-refs")), /holds a link "packed-refs"/],
    ];
    for (const [what, make, reason] of attempts) {
      const backup = join(f.base, "backup");
      await copy(dotGit, backup);
      await make();
      await assert.rejects(gitLayout("r", r), refusedFor(reason), what);
      await Deno.remove(dotGit, { recursive: true });
      await Deno.rename(backup, dotGit);
      await gitLayout("r", r);
    }
  }),
);

Deno.test(
  "gitLayout() follows alternates inside the path, and outside ones only where allowed",
  withPair(async ({ f, r, o }) => {
    const store = join(r, "store");
    await Deno.mkdir(join(store, "info"), { recursive: true });
    await Deno.writeTextFile(join(r, ".git/objects/info/alternates"), "# a comment\n\n../../store\n");
    assert.deepEqual((await gitLayout("r", r)).objectStores, [join(r, ".git/objects"), store]);
    // A chain: inside, then out.
    await Deno.writeTextFile(join(store, "info/alternates"), `${o}/.git/objects\n`);
    await assert.rejects(gitLayout("r", r), refusedFor(/alternate object store is not a folder inside its path$/));
    const layout = await gitLayout("r", r, [join(o, ".git")]);
    assert.deepEqual(layout.objectStores.at(-1), join(o, ".git/objects"));
    await assert.rejects(gitLayout("r", r, [join(f.base, "elsewhere")]), refusedFor(/or allow_outside$/));
  }),
);

Deno.test("gitLayout() accepts a .git file that stays inside, and reads an outside path that exists like one that does not", async () => {
  const f = await fixture();
  try {
    const { r } = await pair(f);
    await Deno.rename(join(r, ".git"), join(r, ".git-real"));
    await Deno.writeTextFile(join(r, ".git"), "gitdir: .git-real\r\n");
    assert.equal((await gitLayout("r", r)).gitDir, join(r, ".git-real"));
    const messages: string[] = [];
    for (const target of [join(f.base, "o"), join(f.base, "missing")]) {
      await Deno.writeTextFile(join(r, ".git"), `gitdir: ${target}\n`);
      messages.push(await gitLayout("r", r).then(() => "served", (err: Error) => err.message));
    }
    assert.equal(messages[0], messages[1]);
  } finally {
    await f.end();
  }
});

Deno.test(
  "gitLayout() refuses a .git file, commondir or alternates whose bytes are not UTF-8, never quoting them",
  withPair(async ({ f, r }) => {
    const dotGit = join(r, ".git");
    // What a lenient decoding reads `x\xff` as: a folder that passes every check, where git opens `x\xff`.
    const decoy = join(r, "x\uFFFD");
    await copy(dotGit, decoy);
    const bytes = (...parts: (string | number[])[]) =>
      new Uint8Array(parts.flatMap((p) => typeof p === "string" ? [...new TextEncoder().encode(p)] : p));
    const attempts: [string, () => Promise<void>, string][] = [
      [
        "gitdir file",
        () => swap(dotGit, () => Deno.writeFile(dotGit, bytes("gitdir: x", [0xff], "\n"))),
        "git directory",
      ],
      [
        "gitdir file spelling U+FFFD",
        () => swap(dotGit, () => Deno.writeTextFile(dotGit, "gitdir: x\uFFFD\n")),
        "git directory",
      ],
      ["commondir", () => Deno.writeFile(join(dotGit, "commondir"), bytes("../x", [0xff], "\n")), "common directory"],
      [
        "alternates",
        () => Deno.writeFile(join(dotGit, "objects/info/alternates"), bytes("../../x", [0xff], "/objects\n")),
        "alternate object store",
      ],
    ];
    for (const [what, make, part] of attempts) {
      await attempt(f, r, make, what, (err: unknown) => {
        assert.ok(err instanceof PolicyError && err.code === "invalid-input", String(err));
        assert.equal(
          err.message,
          `Cannot use repo "r": the path to its ${part} is not UTF-8 (or holds U+FFFD), which this server cannot check`,
        );
        return true;
      });
    }
  }),
);

Deno.test(
  "gitLayout() follows a link in a commondir, alternates or .git file before the `..` after it, as git does",
  withPair(async ({ f, r, o }) => {
    // `lnk/..` is the folder holding the link's target (outside) to git, and `r` itself to a lexical reading, where
    // a decoy copy of the git directory passed every check while git read the outside repository (a red team's
    // finding: its config's clean filter ran).
    const dotGit = join(r, ".git");
    await ln(o, join(r, "lnk"));
    await copy(dotGit, join(r, "o"));
    await copy(dotGit, join(r, "o", ".git"));
    const attempts: [string, () => Promise<void>, () => Promise<string>, RegExp][] = [
      [
        "commondir",
        () => Deno.writeTextFile(join(dotGit, "commondir"), "../lnk/../o/.git\n"),
        () => f.git(r, "rev-parse", "--git-common-dir"),
        /common directory/,
      ],
      [
        "alternates",
        () => Deno.writeTextFile(join(dotGit, "objects/info/alternates"), "../../lnk/../o/.git/objects\n"),
        async () => (await f.git(r, "count-objects", "-v")).match(/^alternate: (.*)$/m)?.[1] ?? "",
        /alternate object store/,
      ],
      [
        "gitdir file",
        () => swap(dotGit, () => Deno.writeTextFile(dotGit, "gitdir: lnk/../o/.git\n")),
        () => f.git(r, "rev-parse", "--absolute-git-dir"),
        /git directory/,
      ],
    ];
    for (const [what, make, gitReads, reason] of attempts) {
      await attempt(
        f,
        r,
        async () => {
          await make();
          // What git reads: the outside repository's folder.
          assert.ok((await gitReads()).trim().startsWith(join(o, ".git")), `${what}: git reads ${await gitReads()}`);
        },
        what,
        refusedFor(reason),
      );
    }
  }),
);

Deno.test(
  "gitLayout() refuses a link at any depth of the git data that leads outside: refs/heads, a ref, a loose object in a real fanout folder, logs/HEAD",
  withPair(async ({ f, r, o }) => {
    const [dotGit, other] = [join(r, ".git"), join(o, ".git")];
    const [fanout, object] = await looseObject(other, dotGit);
    const attempts: [string, () => Promise<void>, RegExp][] = [
      [
        "refs/heads, a link to another repository's branches",
        () => swap(join(dotGit, "refs/heads"), () => ln(join(other, "refs/heads"), join(dotGit, "refs/heads"))),
        /its git directory holds a link "refs\/heads" that/,
      ],
      [
        "one branch, a link to another repository's",
        () =>
          swap(
            join(dotGit, "refs/heads/main"),
            () => ln(join(other, "refs/heads/main"), join(dotGit, "refs/heads/main")),
          ),
        /its git directory holds a link "refs\/heads\/main" that/,
      ],
      [
        "a loose object, a link in a real fanout folder",
        async () => {
          await Deno.mkdir(join(dotGit, "objects", fanout), { recursive: true });
          await ln(join(other, "objects", fanout, object), join(dotGit, "objects", fanout, object));
        },
        new RegExp(`its object store holds a link "${fanout}/${object}" that`),
      ],
      [
        "logs/HEAD, which a commit appends to",
        () => swap(join(dotGit, "logs/HEAD"), () => ln(join(f.base, "victim.txt"), join(dotGit, "logs/HEAD"))),
        /its git directory holds a link "logs\/HEAD" that/,
      ],
      [
        "logs/refs/heads, a link to a folder outside",
        () => swap(join(dotGit, "logs/refs/heads"), () => ln(f.base, join(dotGit, "logs/refs/heads"))),
        /its git directory holds a link "logs\/refs\/heads" that/,
      ],
      [
        "a worktree's HEAD",
        async () => {
          await Deno.mkdir(join(dotGit, "worktrees/wt"), { recursive: true });
          await ln(join(other, "HEAD"), join(dotGit, "worktrees/wt/HEAD"));
        },
        /its git directory holds a link "worktrees\/wt\/HEAD" that/,
      ],
    ];
    await Deno.writeTextFile(join(f.base, "victim.txt"), "victim\n");
    for (const [what, make, reason] of attempts) {
      await attempt(f, r, make, what, refusedFor(new RegExp(`${reason.source} leads outside its path$`)));
    }
    // A link to an outside path that exists reads like one to a path that does not.
    const messages: string[] = [];
    for (const target of [join(other, "refs/heads/main"), join(f.base, "missing")]) {
      await Deno.remove(join(dotGit, "refs/heads/main"));
      await ln(target, join(dotGit, "refs/heads/main"));
      messages.push(await gitLayout("r", r).then(() => "served", (err: Error) => err.message));
    }
    assert.equal(messages[0], messages[1]);
    assert.match(messages[0], /holds a link "refs\/heads\/main" that leads outside its path$/);
  }),
);

Deno.test(
  "gitLayout() walks a folder a link leads to inside the path, and accepts links that stay inside",
  withPair(async ({ r, o }) => {
    const dotGit = join(r, ".git");
    // HEAD as git's core.preferSymlinkRefs writes it: a link to the branch.
    await swap(join(dotGit, "HEAD"), () => ln("refs/heads/main", join(dotGit, "HEAD")));
    // The branches in a folder elsewhere in the path: walked as well.
    const heads = join(r, "heads");
    await Deno.rename(join(dotGit, "refs/heads"), heads);
    await ln(heads, join(dotGit, "refs/heads"));
    await gitLayout("r", r);
    await ln(join(o, ".git/refs/heads/main"), join(heads, "theirs"));
    await assert.rejects(
      gitLayout("r", r),
      refusedFor(/its git directory holds a link "refs\/heads\/theirs" that leads outside its path$/),
    );
  }),
);

Deno.test(
  "gitLayout() refuses a file of the git data with a second name, unless hard links are allowed",
  withPair(async ({ r, o }) => {
    const [fanout, object] = await looseObject(join(o, ".git"), join(r, ".git"));
    await Deno.mkdir(join(r, ".git/objects", fanout), { recursive: true });
    await Deno.link(join(o, ".git/objects", fanout, object), join(r, ".git/objects", fanout, object));
    await assert.rejects(gitLayout("r", r), (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "not-a-file", String(err));
      assert.equal(
        err.message,
        `Cannot use repo "r": its object store holds a file "${fanout}/${object}" with 2 hard links, and this ` +
          "server reads only git data whose files have one name (allow_hard_links is off)",
      );
      return true;
    });
    await gitLayout("r", r, [], { allowHardLinks: true });
    // A link to a file with a second name, inside the path, is refused alike.
    await Deno.remove(join(r, ".git/objects", fanout, object));
    await Deno.link(join(o, ".git/objects", fanout, object), join(r, "copy"));
    await ln(join(r, "copy"), join(r, ".git/objects", fanout, object));
    await assert.rejects(gitLayout("r", r), /holds a file "[0-9a-f/]+" with 2 hard links/);
  }),
);

Deno.test("gitLayout() refuses git data past its entry limit or nested too deep, and a FIFO does not hold it up", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r");
    const tooLarge = (what: RegExp) => (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "too-large", String(err));
      assert.match(err.message, what);
      return true;
    };
    await assert.rejects(
      gitLayout("r", r, [], { maxEntries: 10 }),
      tooLarge(/^Cannot use repo "r": its git data holds over 10 files and folders, more than this server checks/),
    );
    const fifo = await new Deno.Command("/usr/bin/mkfifo", { args: [join(r, ".git/refs/heads/fifo")] }).output();
    assert.ok(fifo.success);
    await gitLayout("r", r);
    const deep = join(r, ".git/refs/tags", ...Array(MAX_GIT_DATA_DEPTH).fill("d"));
    await Deno.mkdir(deep, { recursive: true });
    await assert.rejects(gitLayout("r", r), tooLarge(/its git directory holds folders nested over 64 deep/));
  } finally {
    await f.end();
  }
});

Deno.test(
  "gitLayout() with a cache reads a folder again once it changes, and follows every link again each time",
  withPair(async ({ r, o }) => {
    const dotGit = join(r, ".git");
    // Kept however recent: each change below is made after the folder was read.
    const cache = new GitDataCache(0);
    // A folder's mtime is put back before the walk that keeps it, so the change made in it after that walk gives it
    // another, whatever the grain of the file system's clock: the kernel stamps files from a coarse clock (a tick of
    // a few ms), and a change right after the walk read the same mtime and ctime (the 10 s rule of RACY_MS is what
    // covers that outside tests).
    const putBack = (folder: string) => Deno.utime(folder, 0, 0);
    const heads = join(r, "heads");
    await Deno.rename(join(dotGit, "refs/heads"), heads);
    await ln(heads, join(dotGit, "refs/heads"));
    await putBack(join(dotGit, "logs"));
    await gitLayout("r", r, [], { cache });
    await gitLayout("r", r, [], { cache });
    // A link made in a folder found clean.
    await ln(join(o, ".git/refs/heads/main"), join(dotGit, "logs/theirs"));
    await assert.rejects(
      gitLayout("r", r, [], { cache }),
      refusedFor(/holds a link "logs\/theirs" that leads outside/),
    );
    await Deno.remove(join(dotGit, "logs/theirs"));
    await gitLayout("r", r, [], { cache });
    // A hard link made in a folder found clean.
    const [fanout, object] = await looseObject(join(o, ".git"), dotGit);
    await Deno.mkdir(join(dotGit, "objects", fanout), { recursive: true });
    await putBack(join(dotGit, "objects", fanout));
    await gitLayout("r", r, [], { cache });
    await Deno.link(join(o, ".git/objects", fanout, object), join(dotGit, "objects", fanout, object));
    await assert.rejects(gitLayout("r", r, [], { cache }), /holds a file "[0-9a-f/]+" with 2 hard links/);
    // Found clean while hard links were allowed: no answer once they are not.
    await gitLayout("r", r, [], { cache, allowHardLinks: true });
    await assert.rejects(gitLayout("r", r, [], { cache }), /with 2 hard links/);
    await Deno.remove(join(dotGit, "objects", fanout, object));
    await gitLayout("r", r, [], { cache });
    // The folder refs/heads leads to is swapped for a link outside: .git/refs is unchanged, its link followed again.
    await Deno.rename(heads, join(r, "heads-old"));
    await ln(join(o, ".git/refs/heads"), heads);
    await assert.rejects(gitLayout("r", r, [], { cache }), refusedFor(/holds a link "refs\/heads" that leads outside/));
  }),
);

Deno.test(
  "gitLayout() with a cache keeps no folder changed in the last seconds: a change with its mtime put back is seen",
  withPair(async ({ r, o }) => {
    const logs = join(r, ".git/logs");
    const cache = new GitDataCache();
    const before = await Deno.lstat(logs);
    await gitLayout("r", r, [], { cache });
    // Likely in the same second as the read, so its ctime, in whole seconds, reads the same.
    await ln(join(o, ".git/logs/HEAD"), join(logs, "theirs"));
    await Deno.utime(logs, before.atime!, before.mtime!);
    await assert.rejects(
      gitLayout("r", r, [], { cache }),
      refusedFor(/holds a link "logs\/theirs" that leads outside/),
    );
  }),
);

/** Backs up the git directory, makes one attempt, checks the refusal, and puts the git directory back. */
async function attempt(
  f: Fixture,
  r: string,
  make: () => Promise<void>,
  what: string,
  refused: (err: unknown) => boolean,
): Promise<void> {
  const [dotGit, backup] = [join(r, ".git"), join(f.base, "backup")];
  await copy(dotGit, backup);
  await make();
  await assert.rejects(gitLayout("r", r), refused, what);
  await Deno.remove(dotGit, { recursive: true });
  await Deno.rename(backup, dotGit);
  await gitLayout("r", r);
}

/** A loose object of `gitDir` that `mine` does not hold: its fanout folder and file name. */
async function looseObject(gitDir: string, mine: string): Promise<[string, string]> {
  for await (const fanout of Deno.readDir(join(gitDir, "objects"))) {
    if (!/^[0-9a-f]{2}$/.test(fanout.name)) continue;
    for await (const object of Deno.readDir(join(gitDir, "objects", fanout.name))) {
      const held = await Deno.lstat(join(mine, "objects", fanout.name, object.name)).then(() => true, () => false);
      if (!held) return [fanout.name, object.name];
    }
  }
  throw new Error(`no loose object of its own in ${gitDir}`);
}

async function swap(path: string, make: () => Promise<void>): Promise<void> {
  await Deno.remove(path, { recursive: true });
  await make();
}

async function copy(from: string, to: string): Promise<void> {
  await Deno.mkdir(to);
  for await (const entry of Deno.readDir(from)) {
    const [a, b] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory) await copy(a, b);
    else if (entry.isFile) await Deno.copyFile(a, b);
  }
}
