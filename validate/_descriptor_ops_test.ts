// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln,mkfifo,sh,ls
import { lateFifoWriter } from "../internal/testdata/fifo_writer.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { walkHooks } from "./_descriptor_anchor.ts";
import { PathJail } from "./path_jail.ts";
import { definePolicy } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "descriptor_ops_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms: Deno.PermissionOptions = { read: [dir], write: [dir], run: ["ln", "mkfifo", "sh"] };

function run(cmd: string, ...args: string[]): void {
  assert.ok(new Deno.Command(cmd, { args }).outputSync().success, `${cmd} ${args.join(" ")}`);
}

Deno.mkdirSync(join(dir, "private"), { mode: 0o700 });
const anchor = join(dir, "private", "fd");
run("ln", "-s", "/proc/self/fd", anchor);
const root = join(dir, "root");
Deno.mkdirSync(join(root, "sub"), { recursive: true });
Deno.writeTextFileSync(join(root, "sub", "f.txt"), "inside");
Deno.writeTextFileSync(join(root, "other.txt"), "other");
run("mkfifo", join(root, "fifo"));
const jail = new PathJail(definePolicy({ readRoots: [], writeRoots: [root] }), { descriptorAnchor: anchor });
const refused = (code: string) => (err: unknown) =>
  err instanceof PolicyError && err.code === code && !err.message.includes(dir);
// Only this test's descriptors count: other test modules may share the process and its descriptor table.
const descriptors = () =>
  [...Deno.readDirSync(anchor)].filter((fd) => {
    try {
      return Deno.readLinkSync(`${anchor}/${fd.name}`).startsWith(`${root}/`);
    } catch {
      return false;
    }
  }).length;
const temps = (folder: string): string[] => {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(folder)) {
    if (entry.name.startsWith(".forge-write-")) out.push(entry.name);
    if (entry.isDirectory) out.push(...temps(join(folder, entry.name)));
  }
  return out;
};

Deno.test({
  name: "the descriptor walk reads, describes, lists and writes inside the root",
  permissions: perms,
  async fn() {
    assert.equal(await jail.readTextFile("sub/f.txt"), "inside");
    assert.equal((await jail.stat("sub/f.txt")).size, 6);
    assert.equal((await jail.stat(".")).isDirectory, true);
    assert.deepEqual((await jail.listDir("sub")).entries, [{ name: "f.txt", type: "file", size: 6 }]);
    await jail.writeFile("sub/new.txt", "new", { atomic: true });
    await jail.writeFile("sub/new.txt", "newer", { atomic: true });
    await jail.writeFile("sub/log.txt", "a");
    await jail.writeFile("sub/log.txt", "b", { append: true });
    assert.equal(Deno.readTextFileSync(join(root, "sub", "new.txt")), "newer");
    assert.equal(Deno.readTextFileSync(join(root, "sub", "log.txt")), "ab");
    assert.equal((Deno.statSync(join(root, "sub", "new.txt")).mode ?? 0) & 0o777, 0o644);
    assert.deepEqual(temps(root), []);
  },
});

Deno.test({
  name: "the descriptor walk refuses a FIFO without blocking, also one swapped in between lstat and open",
  permissions: perms,
  async fn() {
    // Code that opened the FIFO without O_NONBLOCK would wait for a writer for ever: this one comes late, to fail it.
    const writer = lateFifoWriter(join(root, "fifo"));
    try {
      await assert.rejects(jail.readTextFile("fifo"), refused("not-a-file"));
      assert.ok(!writer.came(), "the open waited for the FIFO's other end: it was opened without O_NONBLOCK");
    } finally {
      await writer.end();
    }
    const swapped = lateFifoWriter(join(root, "other.txt"));
    walkHooks.beforeOpen = (at) => {
      if (at.endsWith("/other.txt")) Deno.renameSync(join(root, "fifo"), join(root, "other.txt"));
    };
    try {
      // Without O_NONBLOCK this open would wait for a writer for ever.
      await assert.rejects(jail.readTextFile("other.txt"), refused("changed"));
      assert.ok(!swapped.came(), "the open waited for the FIFO's other end: it was opened without O_NONBLOCK");
    } finally {
      walkHooks.beforeOpen = undefined;
      await swapped.end();
      Deno.renameSync(join(root, "other.txt"), join(root, "fifo"));
      Deno.writeTextFileSync(join(root, "other.txt"), "other");
    }
  },
});

Deno.test({
  name: "the descriptor walk sees a file swapped between lstat and open, for reads and in-place writes",
  permissions: perms,
  async fn() {
    const swap = () => {
      Deno.writeTextFileSync(join(root, "sub", "impostor.txt"), "impostor");
      Deno.renameSync(join(root, "sub", "impostor.txt"), join(root, "sub", "f.txt"));
    };
    walkHooks.beforeOpen = (at) => at.endsWith("/f.txt") && swap();
    try {
      await assert.rejects(jail.readTextFile("sub/f.txt"), refused("changed"));
      await assert.rejects(jail.writeFile("sub/f.txt", "x"), refused("changed"));
    } finally {
      walkHooks.beforeOpen = undefined;
    }
    assert.equal(Deno.readTextFileSync(join(root, "sub", "f.txt")), "impostor", "the refused write changed nothing");
    Deno.writeTextFileSync(join(root, "sub", "f.txt"), "inside");
  },
});

Deno.test({
  name: "the descriptor walk removes its temporary file when the write fails at the last step",
  permissions: perms,
  async fn() {
    // A folder (not empty) takes the target's name just before the rename; then a file, before a create-new link.
    walkHooks.beforePlace = (at) => {
      if (!at.endsWith("/late.txt")) return;
      Deno.mkdirSync(join(root, "sub", "late.txt", "child"), { recursive: true });
    };
    try {
      await assert.rejects(jail.writeFile("sub/late.txt", "x", { atomic: true }), refused("not-a-file"));
      Deno.removeSync(join(root, "sub", "late.txt"), { recursive: true });
      walkHooks.beforePlace = (at) =>
        at.endsWith("/late.txt") && Deno.writeTextFileSync(join(root, "sub", "late.txt"), "first");
      await assert.rejects(jail.writeFile("sub/late.txt", "x", { createNew: true }), refused("invalid-input"));
      assert.equal(Deno.readTextFileSync(join(root, "sub", "late.txt")), "first");
    } finally {
      walkHooks.beforePlace = undefined;
    }
    await assert.rejects(jail.writeFile("sub", "x", { atomic: true }), refused("not-a-file"));
    assert.deepEqual(temps(root), []);
  },
});

Deno.test({
  name: "the descriptor walk refuses an in-place write to a hard-linked file, whose other name may lie outside",
  permissions: perms,
  async fn() {
    Deno.writeTextFileSync(join(root, "linked.txt"), "shared");
    Deno.linkSync(join(root, "linked.txt"), join(dir, "outside-name.txt"));
    await assert.rejects(jail.writeFile("linked.txt", "pwned"), /2 hard links/);
    assert.equal(Deno.readTextFileSync(join(dir, "outside-name.txt")), "shared");
    // The atomic replace gives the name a new file and leaves the other name alone.
    await jail.writeFile("linked.txt", "mine", { atomic: true });
    assert.equal(Deno.readTextFileSync(join(dir, "outside-name.txt")), "shared");
  },
});

Deno.test({
  name: "the descriptor walk refuses a name longer than the file system allows, saying why",
  permissions: perms,
  async fn() {
    const err = await jail.readTextFile(`sub/${"n".repeat(300)}`).catch((e) => e);
    assert.ok(refused("invalid-input")(err), String(err));
    assert.match(err.message, /longer than the file system allows/);
  },
});

Deno.test({
  name: "the descriptor walk holds no descriptor after 1,000 calls, refused ones included",
  permissions: perms,
  async fn() {
    await jail.readTextFile("sub/f.txt");
    const before = descriptors();
    for (let i = 0; i < 125; i++) {
      await jail.readTextFile("sub/f.txt");
      await jail.stat("sub/f.txt");
      await jail.listDir("sub");
      await jail.writeFile("sub/w.txt", String(i), { atomic: true });
      await jail.readTextFile("fifo").catch(() => {});
      await jail.readTextFile("sub").catch(() => {});
      await jail.writeFile("sub", "x").catch(() => {});
      await jail.readTextFile("sub/missing.txt").catch(() => {});
    }
    assert.equal(descriptors(), before);
    // The count sees a descriptor that is left open.
    const file = Deno.openSync(join(root, "sub", "f.txt"));
    assert.equal(descriptors(), before + 1);
    file.close();
  },
});

Deno.test({
  name: "the descriptor walk fails closed when the anchor was replaced by a link to a look-alike folder",
  permissions: perms,
  async fn() {
    Deno.mkdirSync(join(dir, "private2"), { mode: 0o700 });
    const second = join(dir, "private2", "fd");
    run("ln", "-s", "/proc/self/fd", second);
    const jail2 = new PathJail(definePolicy({ readRoots: [root] }), { descriptorAnchor: second });
    assert.equal(await jail2.readTextFile("sub/f.txt"), "inside");
    // A folder that mimics /proc/self/fd: every descriptor number leads to a tree with the same names.
    const fake = join(dir, "fake");
    for (let fd = 0; fd < 256; fd++) Deno.mkdirSync(join(fake, String(fd), "sub"), { recursive: true });
    for (let fd = 0; fd < 256; fd++) Deno.writeTextFileSync(join(fake, String(fd), "sub", "f.txt"), "impostor");
    Deno.removeSync(second);
    run("ln", "-s", fake, second);
    const err = await jail2.readTextFile("sub/f.txt").catch((e) => e);
    assert.ok(err instanceof Error && !(err instanceof PolicyError), String(err));
    assert.match(err.message, /no longer leads to this process's descriptors/);
  },
});

Deno.test({
  name: "the descriptor walk never replaces a file that takes the name of a createNew atomic write meanwhile",
  permissions: perms,
  async fn() {
    walkHooks.beforePlace = (at) =>
      at.endsWith("/raced.txt") && Deno.writeTextFileSync(join(root, "raced.txt"), "theirs");
    try {
      await assert.rejects(
        jail.writeFile("raced.txt", "mine", { createNew: true, atomic: true }),
        refused("invalid-input"),
      );
    } finally {
      walkHooks.beforePlace = undefined;
    }
    assert.equal(Deno.readTextFileSync(join(root, "raced.txt")), "theirs");
    await jail.writeFile("fresh.txt", "mine", { createNew: true, atomic: true });
    assert.equal(Deno.readTextFileSync(join(root, "fresh.txt")), "mine");
    assert.equal(Deno.statSync(join(root, "fresh.txt")).nlink, 1);
    assert.deepEqual(temps(root), []);
  },
});

Deno.test({
  name: "an atomic or create-new write flushes the folder its new name is in, with or without a descriptor anchor",
  permissions: perms,
  async fn() {
    const synced: [string, boolean][] = [];
    walkHooks.folderSynced = (path, ok) => synced.push([path, ok]);
    try {
      await jail.writeFile("sub/synced.txt", "a", { atomic: true });
      await jail.writeFile("top.txt", "b", { createNew: true });
      await jail.writeFile("sub/f.txt", "in place");
      // Without an anchor, the folder is opened by its real path.
      const plain = new PathJail(definePolicy({ readRoots: [], writeRoots: [root] }));
      await plain.writeFile("sub/plain.txt", "c", { atomic: true });
    } finally {
      walkHooks.folderSynced = undefined;
    }
    // An in-place write changes no name, so no folder needs flushing.
    assert.deepEqual(synced, [["sub/synced.txt", true], ["top.txt", true], ["sub/plain.txt", true]]);
    assert.equal(Deno.readTextFileSync(join(root, "sub", "synced.txt")), "a");
    assert.equal(Deno.readTextFileSync(join(root, "sub", "plain.txt")), "c");
    assert.equal(Deno.readTextFileSync(join(root, "sub", "f.txt")), "in place");
    Deno.writeTextFileSync(join(root, "sub", "f.txt"), "inside");
    for (const name of ["sub/synced.txt", "top.txt", "sub/plain.txt"]) Deno.removeSync(join(root, name));
  },
});

/**
 * A writable root `outer<tag>/inbox` (holding the folder `folders`) inside the read root `outer<tag>`, a folder
 * `away<tag>` outside both, and a jail over them through the anchor.
 */
function nestedWritableRoot(tag: string, folders: string) {
  const outer = join(dir, `outer${tag}`);
  const inbox = join(outer, "inbox");
  const away = join(dir, `away${tag}`);
  Deno.mkdirSync(join(inbox, folders), { recursive: true });
  Deno.mkdirSync(away);
  const nested = new PathJail(definePolicy({ readRoots: [outer], writeRoots: [inbox] }), {
    descriptorAnchor: anchor,
  });
  return { outer, inbox, away, nested };
}

Deno.test({
  name:
    "the descriptor walk writes nothing outside, and removes the empty file its create left there, when its root is removed and its '(deleted)' path made a link out between the root's check and the create",
  permissions: perms,
  async fn() {
    // As in the test below, but the root goes after its name was checked and before the temporary file is created:
    // the create lands outside, which the lookup through the root's descriptor shows before a byte is written, and
    // the file goes at once, found by the kernel's name for it.
    const { outer, inbox, away, nested } = nestedWritableRoot("2", "");
    walkHooks.beforeCreate = () => {
      // The other process, which may write in the read root: the empty writable root goes, and the name the kernel
      // now gives its descriptor, "<inbox> (deleted)", becomes a link out.
      Deno.removeSync(inbox);
      run("ln", "-s", away, `${inbox} (deleted)`);
    };
    // What lies outside when the write is about to be placed (a later refusal removes the file).
    const sizes = () => [...Deno.readDirSync(away)].map((entry) => Deno.statSync(join(away, entry.name)).size);
    let written: number[] = [];
    walkHooks.beforePlace = () => (written = written.concat(sizes()));
    let err: unknown;
    try {
      err = await nested.writeFile("x.txt", "mine", { atomic: true }).catch((e) => e);
    } finally {
      walkHooks.beforeCreate = undefined;
      walkHooks.beforePlace = undefined;
    }
    const outside = [...Deno.readDirSync(away)].map((
      entry,
    ) => [entry.name, Deno.statSync(join(away, entry.name)).size]);
    Deno.removeSync(outer, { recursive: true });
    Deno.removeSync(away, { recursive: true });
    assert.ok(refused("changed")(err), String(err));
    assert.deepEqual(written.filter((size) => size > 0), [], "bytes were written to a file outside the roots");
    // The create itself cannot be stopped (it was there, empty, for an instant): nothing stays.
    assert.deepEqual(outside, [], "a file stayed outside the roots");
  },
});

Deno.test({
  name:
    "the descriptor walk removes the file its create left outside by identity: never another file put at its name, and it follows the file moved",
  permissions: perms,
  async fn() {
    const { outer, inbox, away, nested } = nestedWritableRoot("3", "");
    walkHooks.beforeCreate = () => {
      Deno.removeSync(inbox);
      run("ln", "-s", away, `${inbox} (deleted)`);
    };
    // The other process, which can write where the file landed: it moves the file away within that folder and puts
    // its own file at the name, just before the name is compared and removed.
    const seen: string[] = [];
    walkHooks.beforeLandedRemoved = (landed) => {
      seen.push(landed);
      if (seen.length > 1) return;
      Deno.renameSync(landed, join(away, "moved"));
      Deno.writeTextFileSync(landed, "theirs");
    };
    let err: unknown;
    try {
      err = await nested.writeFile("x.txt", "mine", { atomic: true }).catch((e) => e);
    } finally {
      walkHooks.beforeCreate = undefined;
      walkHooks.beforeLandedRemoved = undefined;
    }
    const outside = Object.fromEntries(
      [...Deno.readDirSync(away)].map((entry) => [entry.name, Deno.readTextFileSync(join(away, entry.name))]),
    );
    Deno.removeSync(outer, { recursive: true });
    Deno.removeSync(away, { recursive: true });
    assert.ok(refused("changed")(err), String(err));
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.match(seen[0], /\/\.forge-write-[0-9a-f-]+\.tmp$/);
    assert.equal(seen[1], join(away, "moved"));
    // Its own file, followed to where it was moved, went; the other file of its name stayed, untouched.
    assert.deepEqual(outside, { [seen[0].slice(seen[0].lastIndexOf("/") + 1)]: "theirs" });
  },
});

Deno.test({
  name:
    "the descriptor walk removes the file its create left outside also when it is moved to a name ending in ' (deleted)', which only the link count tells from a removed file",
  permissions: perms,
  async fn() {
    const { outer, inbox, away, nested } = nestedWritableRoot("4", "");
    walkHooks.beforeCreate = () => {
      Deno.removeSync(inbox);
      run("ln", "-s", away, `${inbox} (deleted)`);
    };
    // The other process, which can write where the file landed: it renames the file to a name the kernel's text for a
    // removed file also ends with.
    const seen: string[] = [];
    walkHooks.beforeLandedRemoved = (landed) => {
      seen.push(landed);
      if (seen.length === 1) Deno.renameSync(landed, join(away, "x (deleted)"));
    };
    let err: unknown;
    try {
      err = await nested.writeFile("x.txt", "mine", { atomic: true }).catch((e) => e);
    } finally {
      walkHooks.beforeCreate = undefined;
      walkHooks.beforeLandedRemoved = undefined;
    }
    const outside = [...Deno.readDirSync(away)].map((entry) => entry.name);
    Deno.removeSync(outer, { recursive: true });
    Deno.removeSync(away, { recursive: true });
    assert.ok(refused("changed")(err), String(err));
    assert.deepEqual(seen.slice(1), [join(away, "x (deleted)")], JSON.stringify(seen));
    assert.deepEqual(outside, [], "a file stayed outside the roots");
  },
});

// Made here, with the file's permissions: the test below runs with fewer (the unload handler removes it).
const ungranted = nestedWritableRoot("5", "");

Deno.test({
  name:
    "the descriptor walk cannot remove the file its create left in a folder outside its read grants, and says so on stderr only, by the file's path",
  permissions: {
    read: [ungranted.outer, join(dir, "private")],
    write: [ungranted.outer, join(dir, "private")],
    run: ["ln", "ls"],
  },
  async fn() {
    // Least privilege, as deployed: the process may read and write its roots and the anchor, not the folder the swap
    // sends the create to. The create lands there all the same (Deno checks the anchor's path as given); opening that
    // folder to remove it is what Deno refuses.
    const { inbox, away, nested } = ungranted;
    walkHooks.beforeCreate = () => {
      Deno.removeSync(inbox);
      run("ln", "-s", away, `${inbox} (deleted)`);
    };
    const said: string[] = [];
    const error = console.error;
    console.error = (...args: unknown[]) => said.push(args.join(" "));
    let err: unknown;
    try {
      err = await nested.writeFile("x.txt", "mine", { atomic: true }).catch((e) => e);
    } finally {
      console.error = error;
      walkHooks.beforeCreate = undefined;
    }
    assert.ok(refused("changed")(err), String(err));
    assert.equal(said.length, 1, JSON.stringify(said));
    assert.match(said[0], /^Cannot remove a temporary file a racing process redirected out of its root: "/);
    assert.ok(said[0].includes(`${away}/.forge-write-`), said[0]);
    // It stays there: listed by a process that may look (this one may not).
    const listed = new TextDecoder().decode(new Deno.Command("ls", { args: ["-A", away] }).outputSync().stdout);
    assert.match(listed, /^\.forge-write-[0-9a-f-]+\.tmp\n$/);
  },
});

Deno.test({
  name:
    "the descriptor walk creates no temporary file outside when a writable root inside another root is removed mid-write and its '(deleted)' path is made a link out",
  permissions: perms,
  async fn() {
    // A writable root inside a read root: a process that can write in the read root can remove the writable root
    // while a write holds its descriptor. The kernel then names that descriptor "<root> (deleted)", a path the
    // process can make, and Deno opens through a descriptor by the path it names.
    const { outer, inbox, away, nested } = nestedWritableRoot("", join("sub", "sub2"));
    await nested.writeFile("sub/sub2/first.txt", "first", { atomic: true });
    const deleted = join(outer, "inbox (deleted)");
    walkHooks.beforeOpen = (at) => {
      if (at.endsWith("/sub")) {
        // The other process: sub moves under "inbox (deleted)" and the emptied writable root goes.
        Deno.mkdirSync(deleted);
        Deno.renameSync(join(inbox, "sub"), join(deleted, "sub"));
        Deno.removeSync(inbox);
      } else if (at.endsWith("/sub2")) {
        // Its descriptor of sub still leads to the same folder, now under "keep"; the name it holds for the root
        // becomes a link out.
        Deno.renameSync(deleted, join(outer, "keep"));
        run("ln", "-s", away, deleted);
      }
    };
    let err: unknown;
    try {
      err = await nested.writeFile("sub/sub2/x.txt", "mine", { atomic: true }).catch((e) => e);
    } finally {
      walkHooks.beforeOpen = undefined;
    }
    const strays = temps(away);
    Deno.removeSync(outer, { recursive: true });
    Deno.removeSync(away, { recursive: true });
    assert.deepEqual(strays, [], "a temporary file was created outside the roots");
    assert.ok(refused("changed")(err), String(err));
  },
});

Deno.test({
  name:
    "the descriptor walk removes its temporary file when the root moves just after it was created there, and refuses as changed a root gone before the create",
  permissions: perms,
  async fn() {
    const tree = join(dir, "moving");
    const [own, moved] = [join(tree, "w"), join(tree, "w-moved")];
    Deno.mkdirSync(own, { recursive: true });
    const movingJail = new PathJail(definePolicy({ readRoots: [], writeRoots: [own] }), { descriptorAnchor: anchor });
    const swaps: [string, () => void][] = [
      // Another process moves the root and puts a link to it at its name: the create, which Deno makes by the root's
      // path, lands in the root, which the kernel now names elsewhere.
      ["moved, a link to it in its place", () => {
        Deno.renameSync(own, moved);
        run("ln", "-s", moved, own);
      }],
      // Moved away with nothing in its place: the create is made where the kernel now names the root, in the root.
      ["moved away", () => Deno.renameSync(own, moved)],
      // Removed (it was empty): the kernel names it "<root> (deleted)", where the create finds no folder.
      ["removed", () => Deno.removeSync(own)],
    ];
    const names = (folder: string) => [...Deno.readDirSync(tree)].some((entry) => entry.name === folder);
    for (const [label, swap] of swaps) {
      walkHooks.beforeCreate = () => {
        walkHooks.beforeCreate = undefined;
        swap();
      };
      let err: unknown;
      try {
        err = await movingJail.writeFile("x.txt", "mine", { atomic: true }).then(() => undefined, (e) => e);
      } finally {
        walkHooks.beforeCreate = undefined;
      }
      const left = names("w-moved") ? [...Deno.readDirSync(moved)].map((entry) => entry.name) : [];
      // Put back: the link goes, the moved root returns, a removed one is made again.
      if (names("w") && Deno.lstatSync(own).isSymlink) Deno.removeSync(own);
      if (names("w-moved")) Deno.renameSync(moved, own);
      if (!names("w")) Deno.mkdirSync(own);
      assert.ok(refused("changed")(err), `${label}: ${err}`);
      assert.equal((err as Error).message, 'Cannot write "x.txt": it changed while it was being opened; try again');
      assert.deepEqual(left, [], `${label}: a file was left in the root`);
      assert.deepEqual([...Deno.readDirSync(own)], [], `${label}: a file was left in the root`);
      assert.equal(descriptors(), 0, `${label}: a descriptor stayed open`);
    }
    Deno.removeSync(tree, { recursive: true });
  },
});
