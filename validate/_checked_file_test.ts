// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=mkfifo,sh
import { lateFifoWriter } from "../internal/testdata/fifo_writer.ts";
import assert from "node:assert/strict";
import * as nodeFs from "node:fs";
import { join } from "node:path";
import { refusalFor } from "./_caller_path.ts";
import { readChecked, statChecked, type Stray, writeChecked } from "./_checked_file.ts";
import { walkHooks } from "./_descriptor_anchor.ts";
import { LimitError } from "./limits.ts";
import { PolicyError } from "./policy_error.ts";

const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "checked_" }));
globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
const perms: Deno.PermissionOptions = { read: [dir], write: [dir], run: ["mkfifo", "sh"] };
const context = { allowHardLinks: false };
const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test({
  name: "readChecked() reads a regular file up to the cap",
  permissions: perms,
  async fn() {
    await Deno.writeTextFile(join(dir, "a.txt"), "abcdef");
    const whole = await readChecked(join(dir, "a.txt"), "a.txt", context, { maxBytes: 10 });
    assert.equal(new TextDecoder().decode(whole.bytes), "abcdef");
    const cut = await readChecked(join(dir, "a.txt"), "a.txt", context, { maxBytes: 2, truncate: true });
    assert.deepEqual([new TextDecoder().decode(cut.bytes), cut.size], ["ab", 6]);
    await assert.rejects(readChecked(join(dir, "a.txt"), "a.txt", context, { maxBytes: 2 }), LimitError);
  },
});

Deno.test({
  name: "readChecked() refuses a folder before opening it",
  permissions: perms,
  async fn() {
    await Deno.mkdir(join(dir, "sub"), { recursive: true });
    const err = await readChecked(join(dir, "sub"), "here", context, { maxBytes: 10 }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.message, 'Cannot read "here": it is not a regular file');
  },
});

Deno.test({
  name: "readChecked() and statChecked() refuse a file with two hard links unless they are allowed",
  permissions: perms,
  async fn() {
    await Deno.writeTextFile(join(dir, "one.txt"), "shared");
    await Deno.link(join(dir, "one.txt"), join(dir, "two.txt"));
    const err = await readChecked(join(dir, "two.txt"), "two.txt", context, { maxBytes: 10 }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.match(err.message, /^Cannot read "two.txt": the file has 2 hard links/);
    assert.throws(() => statChecked(join(dir, "two.txt"), "two.txt", false, context), /2 hard links/);
    const allowed = await readChecked(join(dir, "two.txt"), "two.txt", { ...context, allowHardLinks: true }, {
      maxBytes: 10,
    });
    assert.equal(new TextDecoder().decode(allowed.bytes), "shared");
  },
});

Deno.test({
  name: "readChecked() refuses when the folder it resolved is no longer where the kernel finds it",
  permissions: perms,
  async fn() {
    await Deno.mkdir(join(dir, "moved"), { recursive: true });
    await Deno.writeTextFile(join(dir, "moved", "f.txt"), "x");
    // The path the jail resolved names a folder that is now elsewhere: the step refuses rather than guess.
    await Deno.rename(join(dir, "moved"), join(dir, "moved2"));
    const err = await readChecked(join(dir, "moved", "f.txt"), "m/f.txt", context, { maxBytes: 10 }).catch((e) => e);
    assert.ok(err instanceof PolicyError);
    assert.equal(err.code, "not-found");
  },
});

Deno.test({
  name: "writeChecked() replaces, appends, and refuses an existing file with createNew",
  permissions: perms,
  fn() {
    const file = join(dir, "w.txt");
    writeChecked(file, "w.txt", bytes("long text"), {}, []);
    writeChecked(file, "w.txt", bytes("short"), {}, []);
    assert.equal(Deno.readTextFileSync(file), "short");
    writeChecked(file, "w.txt", bytes("+"), { append: true }, []);
    assert.equal(Deno.readTextFileSync(file), "short+");
    assert.throws(() => writeChecked(file, "w.txt", bytes("x"), { createNew: true }, []), /already exists/);
  },
});

Deno.test({
  name: "writeChecked() atomic replaces the file, keeps its permission bits and leaves no temporary file",
  permissions: perms,
  fn() {
    const folder = join(dir, "atomic");
    Deno.mkdirSync(folder);
    const file = join(folder, "a.txt");
    Deno.writeTextFileSync(file, "old");
    Deno.chmodSync(file, 0o640);
    Deno.linkSync(file, join(folder, "other-name.txt"));
    writeChecked(file, "a.txt", bytes("new"), { atomic: true }, []);
    assert.equal(Deno.readTextFileSync(file), "new");
    assert.equal(Deno.lstatSync(file).mode! & 0o777, 0o640);
    // A rename gives the target a new inode: the file's other name keeps the old bytes.
    assert.equal(Deno.readTextFileSync(join(folder, "other-name.txt")), "old");
    assert.deepEqual([...Deno.readDirSync(folder)].map((e) => e.name).sort(), ["a.txt", "other-name.txt"]);
  },
});

Deno.test({
  name: "writeChecked() refuses a folder as the target and leaves no temporary file",
  permissions: perms,
  fn() {
    const folder = join(dir, "target-dir");
    Deno.mkdirSync(join(folder, "x"), { recursive: true });
    assert.throws(() => writeChecked(join(folder, "x"), "x", bytes("y"), { atomic: true }, []), /is a folder/);
    assert.deepEqual([...Deno.readDirSync(folder)].map((e) => e.name), ["x"]);
  },
});

Deno.test({
  name: "writeChecked() never replaces a file that takes the name of a createNew atomic write meanwhile",
  permissions: perms,
  fn() {
    const target = join(dir, "raced.txt");
    walkHooks.beforePlace = (at) => at.endsWith("/raced.txt") && Deno.writeTextFileSync(target, "theirs");
    try {
      assert.throws(
        () => writeChecked(target, "raced.txt", bytes("mine"), { createNew: true, atomic: true }, []),
        (err: unknown) => err instanceof PolicyError && /already exists/.test(err.message),
      );
    } finally {
      walkHooks.beforePlace = undefined;
    }
    assert.equal(Deno.readTextFileSync(target), "theirs");
    writeChecked(join(dir, "fresh.txt"), "fresh.txt", bytes("mine"), { createNew: true, atomic: true }, []);
    assert.equal(Deno.readTextFileSync(join(dir, "fresh.txt")), "mine");
    assert.equal(Deno.statSync(join(dir, "fresh.txt")).nlink, 1);
    assert.deepEqual([...Deno.readDirSync(dir)].filter((e) => e.name.startsWith(".forge-write-")), []);
  },
});

Deno.test({
  name:
    "readChecked() and an in-place writeChecked() refuse a FIFO swapped in between lstat and open, without blocking",
  permissions: perms,
  async fn() {
    const target = join(dir, "swapped.txt");
    const fifo = join(dir, "waiting-fifo");
    assert.ok(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success);
    const swapIn = (at: string) => {
      if (!at.endsWith("swapped.txt")) return;
      Deno.renameSync(fifo, target);
      walkHooks.beforeOpen = undefined;
    };
    // A blocking open would wait here for a writer: this one comes late, so such code fails the test, not hangs it.
    const writer = lateFifoWriter(target);
    try {
      Deno.writeTextFileSync(target, "regular");
      walkHooks.beforeOpen = swapIn;
      const read = await readChecked(target, "swapped.txt", context, { maxBytes: 10 }).catch((e) => e);
      assert.ok(read instanceof PolicyError, String(read));
      assert.ok(!writer.came(), "the open waited for the FIFO's other end: it was opened without O_NONBLOCK");
      assert.equal(read.code, "changed");
      assert.ok(Deno.lstatSync(target).isFifo, "the hook swapped the FIFO in");
      Deno.renameSync(target, fifo);

      Deno.writeTextFileSync(target, "regular");
      walkHooks.beforeOpen = swapIn;
      const write = (() => {
        try {
          writeChecked(target, "swapped.txt", bytes("x"), {}, []);
        } catch (err) {
          return err;
        }
      })();
      assert.ok(write instanceof PolicyError, String(write));
      assert.ok(!writer.came(), "the open waited for the FIFO's other end: it was opened without O_NONBLOCK");
      assert.equal(write.message, 'Cannot write "swapped.txt": it is not a regular file');
      assert.ok(Deno.lstatSync(target).isFifo, "the hook swapped the FIFO in");
    } finally {
      walkHooks.beforeOpen = undefined;
      await writer.end();
    }
  },
});

Deno.test({
  name:
    "refusalFor() refuses a real OS error Deno throws without a code (ESPIPE: a write at an offset to a FIFO) by its errno name",
  permissions: perms,
  fn() {
    const fifo = join(dir, "espipe-fifo");
    assert.ok(new Deno.Command("mkfifo", { args: [fifo] }).outputSync().success);
    const fd = nodeFs.openSync(fifo, nodeFs.constants.O_RDWR | nodeFs.constants.O_NONBLOCK);
    try {
      const raw = (() => {
        try {
          nodeFs.writeSync(fd, bytes("x"), 0, 1, 5);
        } catch (err) {
          return err;
        }
      })();
      // The shape of the finding: a plain Error, no code, the errno only in the message (EFBIG past `ulimit -f` alike).
      assert.ok(raw instanceof Error && (raw as { code?: unknown }).code === undefined, String(raw));
      assert.match(raw.message, /\(os error \d+\)/);
      assert.throws(
        () => refusalFor(raw, "write", "x"),
        (err: unknown) =>
          err instanceof PolicyError && err.message === 'Cannot write "x": the operating system refused it (ESPIPE)',
      );
    } finally {
      nodeFs.closeSync(fd);
    }
  },
});

Deno.test({
  name:
    "an in-place writeChecked() of a new name never removes, nor writes, the file of that name outside when a swap sends its open there",
  permissions: perms,
  fn() {
    const [folder, real, outside] = [join(dir, "inplace"), join(dir, "inplace-real"), join(dir, "inplace-out")];
    Deno.mkdirSync(folder);
    Deno.mkdirSync(outside);
    Deno.writeTextFileSync(join(outside, "new.txt"), "theirs");
    // Another process swaps the folder for a link to an outside folder that holds a file of the name, just before
    // the open (the lstat a moment before found no such file, so this is a new file to the step).
    walkHooks.beforeOpen = (at) => {
      if (!at.endsWith("/new.txt")) return;
      walkHooks.beforeOpen = undefined;
      Deno.renameSync(folder, real);
      assert.ok(new Deno.Command("sh", { args: ["-c", 'ln -s "$0" "$1"', outside, folder] }).outputSync().success);
    };
    const strays: Stray[] = [];
    let err: unknown;
    try {
      writeChecked(join(folder, "new.txt"), "new.txt", bytes("mine"), {}, strays);
    } catch (e) {
      err = e;
    } finally {
      walkHooks.beforeOpen = undefined;
    }
    assert.ok(err instanceof PolicyError && err.code === "changed", String(err));
    assert.ok(!err.message.includes(dir), err.message);
    assert.deepEqual(strays, [], "a file outside was taken for one this write created");
    assert.equal(Deno.readTextFileSync(join(outside, "new.txt")), "theirs", "the outside file was changed or removed");
    assert.deepEqual([...Deno.readDirSync(real)], [], "a file was left in the folder");
  },
});
