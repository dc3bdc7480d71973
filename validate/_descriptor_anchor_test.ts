// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import fs from "node:fs";
import { join } from "node:path";
import { checkAnchorLink, inFolder, openDirIn, openRoot, walkHooks } from "./_descriptor_anchor.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "anchor_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms: Deno.PermissionOptions = { read: [dir], write: [dir], run: ["ln"] };
const what = { action: "read", path: "caller/path" };

function ln(target: string, path: string): void {
  assert.ok(new Deno.Command("ln", { args: ["-s", target, path] }).outputSync().success);
}

const private_ = join(dir, "private");
Deno.mkdirSync(private_, { mode: 0o700 });
const anchor = join(private_, "fd");
ln("/proc/self/fd", anchor);
const root = join(dir, "root");
Deno.mkdirSync(join(root, "a", "b"), { recursive: true });
Deno.mkdirSync(join(dir, "outside"));
ln(join(dir, "outside"), join(root, "link"));

Deno.test({
  name: "checkAnchorLink() accepts a link to /proc/self/fd in a private folder and checks that folder",
  permissions: perms,
  fn() {
    assert.deepEqual(checkAnchorLink(anchor), { folderChecked: true });
  },
});

Deno.test({
  name: "checkAnchorLink() says the folder went unchecked when Deno may not stat it",
  permissions: { read: [anchor] },
  fn() {
    assert.deepEqual(checkAnchorLink(anchor), { folderChecked: false });
  },
});

Deno.test({
  name: "checkAnchorLink() refuses a missing path, a folder, a link elsewhere, a relative path and a shared folder",
  permissions: perms,
  fn() {
    const other = join(private_, "self");
    ln("/proc/self", other);
    const shared = join(dir, "shared");
    Deno.mkdirSync(shared);
    Deno.chmodSync(shared, 0o777);
    ln("/proc/self/fd", join(shared, "fd"));
    const cases: [string, RegExp][] = [
      [join(private_, "missing"), /cannot be read.*ln -s \/proc\/self\/fd/],
      [private_, /it is not a symbolic link/],
      [other, /points at "\/proc\/self", not \/proc\/self\/fd/],
      ["fd", /must be an absolute path/],
      [join(shared, "fd"), /writable by group or others/],
    ];
    for (const [path, message] of cases) {
      assert.throws(() => checkAnchorLink(path), (err: Error) => {
        assert.match(err.message, /^Cannot use the descriptor anchor /);
        assert.match(err.message, message);
        return true;
      });
    }
  },
});

Deno.test({
  name: "checkAnchorLink() refuses, in its own words, an anchor replaced or removed between its lstat and its readlink",
  permissions: perms,
  fn() {
    const swapped = join(private_, "swapped");
    const swaps: [string, (path: string) => void][] = [
      ["replaced by a folder", (path) => {
        Deno.removeSync(path);
        Deno.mkdirSync(path);
      }],
      ["removed", (path) => Deno.removeSync(path)],
    ];
    try {
      for (const [how, swap] of swaps) {
        ln("/proc/self/fd", swapped);
        walkHooks.beforeAnchorRead = swap;
        assert.throws(() => checkAnchorLink(swapped), (err: Error) => {
          // Deno's own error (`NotFound: … readlink '<path>'`, `InvalidData`) escaped here before.
          assert.equal(err.constructor, Error, how);
          assert.match(err.message, /^Cannot use the descriptor anchor ".*": it changed while it was checked \(/, how);
          assert.match(err.message, /create it with: ln -s \/proc\/self\/fd /, how);
          assert.doesNotMatch(err.message, /readlink|os error/, how);
          return true;
        });
        if (how !== "removed") Deno.removeSync(swapped);
      }
    } finally {
      walkHooks.beforeAnchorRead = undefined;
    }
  },
});

Deno.test({
  name: "openDirIn() walks through folders by descriptor and refuses a symbolic link on the way",
  permissions: perms,
  fn() {
    const { fd } = openRoot(root, undefined, what);
    try {
      const seen = inFolder(anchor, fd, ["a", "b"], what, (b) => fs.fstatSync(b).ino);
      assert.equal(seen, Deno.statSync(join(root, "a", "b")).ino);
      assert.throws(
        () => openDirIn(anchor, fd, "link", what),
        (err) => err instanceof PolicyError && err.code === "changed",
      );
    } finally {
      fs.closeSync(fd);
    }
  },
});

Deno.test({
  name: "openDirIn() sees a name swapped between its lstat and its open by the identity compare",
  permissions: perms,
  fn() {
    Deno.mkdirSync(join(root, "swap"));
    Deno.mkdirSync(join(root, "other"));
    const { fd } = openRoot(root, undefined, what);
    walkHooks.beforeOpen = () => {
      // Another folder takes the name after lstat saw the first one.
      Deno.renameSync(join(root, "swap"), join(root, "swap.was"));
      Deno.renameSync(join(root, "other"), join(root, "swap"));
    };
    try {
      assert.throws(
        () => openDirIn(anchor, fd, "swap", what),
        (err) => err instanceof PolicyError && err.code === "changed" && !err.message.includes(dir),
      );
    } finally {
      walkHooks.beforeOpen = undefined;
      fs.closeSync(fd);
    }
  },
});

Deno.test({
  name: "openRoot() refuses a root that is no longer the folder first seen there",
  permissions: perms,
  fn() {
    Deno.mkdirSync(join(dir, "r1"));
    const first = openRoot(join(dir, "r1"), undefined, what);
    fs.closeSync(first.fd);
    Deno.renameSync(join(dir, "r1"), join(dir, "r1.old"));
    Deno.mkdirSync(join(dir, "r1"));
    assert.throws(() => openRoot(join(dir, "r1"), first.id, what), /root folder was replaced/);
  },
});

// The design rests on which calls Deno hands to the kernel through the anchor
// as they are (the kernel then resolves the name in the descriptor's folder)
// and which it resolves itself first (it reads where the descriptor's link
// points and uses that text). A folder deleted while held open tells them
// apart: only the kernel can still reach it.
Deno.test({
  name: "Deno hands stat and readDir through the anchor to the kernel, but resolves the path of an open itself",
  permissions: perms,
  fn() {
    Deno.mkdirSync(join(dir, "gone"));
    const fd = fs.openSync(join(dir, "gone"), fs.constants.O_RDONLY | fs.constants.O_DIRECTORY);
    try {
      Deno.removeSync(join(dir, "gone"));
      assert.equal(Deno.statSync(`${anchor}/${fd}`).nlink, 0, "stat reaches the deleted folder");
      assert.deepEqual([...Deno.readDirSync(`${anchor}/${fd}`)], [], "readDir reaches the deleted folder");
      // Deno's own resolution finds no such path, falls back to /proc/<pid>/fd/<fd> and refuses that.
      assert.throws(() => fs.openSync(`${anchor}/${fd}`, fs.constants.O_RDONLY), Deno.errors.NotCapable);
    } finally {
      fs.closeSync(fd);
    }
  },
});
