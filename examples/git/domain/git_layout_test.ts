// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { type Fixture, fixture } from "./fixture.ts";
import { gitLayout } from "./git_layout.ts";

async function ln(target: string, path: string): Promise<void> {
  const out = await new Deno.Command("/usr/bin/ln", { args: ["-s", target, path] }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

const refusedFor = (what: RegExp) => (err: unknown) => {
  assert.ok(err instanceof PolicyError && err.code === "outside-roots", String(err));
  assert.match(err.message, what);
  return true;
};

/** A repository "r" and an outside one "o", both with one commit. */
async function pair(f: Fixture): Promise<{ r: string; o: string }> {
  return { r: await f.repo("r"), o: await f.repo("o") };
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

Deno.test("gitLayout() refuses a .git file or link, commondir, objects link or alternates that leave the path", async () => {
  const f = await fixture();
  try {
    const { r, o } = await pair(f);
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
  } finally {
    await f.end();
  }
});

Deno.test("gitLayout() follows alternates inside the path, and outside ones only where allowed", async () => {
  const f = await fixture();
  try {
    const { r, o } = await pair(f);
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
  } finally {
    await f.end();
  }
});

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
