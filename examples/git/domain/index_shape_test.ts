// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { type Fixture, fixture } from "./fixture.ts";
import { INDEX_CHUNK } from "./index_bytes.ts";
import { assertIndexShape, ENTRY_BYTES, indexShape } from "./index_shape.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();

/** git's varint (`encode_varint`). */
function varint(value: number): number[] {
  const out = [value & 127];
  while ((value = Math.floor(value / 128)) > 0) out.unshift(128 | (--value & 127));
  return out;
}

/** One entry on disk: 40 bytes of stat data (the mode at 24), a zero object id, the flags, the name part. */
function entry(version: number, name: string, options: { mode?: number; strip?: number; length?: number } = {}) {
  const suffix = encoder.encode(name);
  const length = Math.min(options.length ?? suffix.length, 0xfff);
  const tail = version === 4 ? [...varint(options.strip ?? 0), ...suffix, 0] : [...suffix];
  const size = version === 4 ? 62 + tail.length : (62 + suffix.length + 8) & ~7;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  view.setUint32(24, options.mode ?? 0o100644);
  view.setUint16(60, length);
  bytes.set(tail, 62);
  return bytes;
}

/** An index file (object ids of 20 bytes) with a checksum of zeros, which git 2.39 does not verify. */
function index(version: number, entries: Uint8Array[], extensions: Uint8Array[] = []): Uint8Array {
  const parts = [new Uint8Array(12), ...entries, ...extensions, new Uint8Array(20)];
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (bytes.set(part, at), at + part.length), 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, 0x44495243);
  view.setUint32(4, version);
  view.setUint32(8, entries.length);
  return bytes;
}

/** An extension: its signature, its size, its bytes. */
function extension(signature: string, payload: Uint8Array = new Uint8Array()): Uint8Array {
  const bytes = new Uint8Array(8 + payload.length);
  bytes.set(encoder.encode(signature));
  new DataView(bytes.buffer).setUint32(4, payload.length);
  bytes.set(payload, 8);
  return bytes;
}

/** What git holds for the entries `git ls-files` lists: ENTRY_BYTES each plus its name. */
async function held(f: Fixture, dir: string): Promise<number> {
  const names = (await f.git(dir, "ls-files", "-z", "--sparse")).split("\0").slice(0, -1);
  return names.reduce((sum, name) => sum + ENTRY_BYTES + encoder.encode(name).length, 0);
}

/** Where `text` first is in `bytes`. */
function find(bytes: Uint8Array, text: string): number {
  const wanted = encoder.encode(text);
  return bytes.findIndex((_, at) => wanted.every((byte, i) => bytes[at + i] === byte));
}

const sha1 = () => Promise.resolve(20);

/** The PolicyError `assertIndexShape` throws for the file at `path`, or undefined. */
async function refusal(
  path: string,
  maxBytes = 64 * MIB,
  hashSize: () => Promise<number> = sha1,
): Promise<PolicyError | undefined> {
  try {
    await assertIndexShape("app", path, { maxBytes, hashSize });
    return undefined;
  } catch (err) {
    if (err instanceof PolicyError) return err;
    throw err;
  }
}

Deno.test("indexShape() reads the indexes git writes (versions 2, 3 and 4, an entry offset table, SHA-256) as git holds them", async () => {
  const f = await fixture();
  try {
    const files: Record<string, string> = { "README.md": "# app\n" };
    for (let i = 0; i < 60; i++) files[`src/module-${i % 4}/deeper/file-${i}.ts`] = `export const n = ${i};\n`;
    const dir = await f.repo("app", files);
    const path = join(dir, ".git", "index");
    const check = async (what: string, hashSize: number) => {
      const bytes = await Deno.readFile(path);
      const shape = indexShape(bytes, hashSize, 64 * MIB);
      assert.equal(shape.refused ?? shape.damaged, undefined, what);
      assert.equal(shape.heldBytes - shape.extensionBytes, await held(f, dir), what);
      // Exactly the sum: one byte less and the index is refused.
      assert.match(indexShape(bytes, hashSize, shape.heldBytes - 1).refused ?? "", /alloc_limit_mib/, what);
      assert.equal(await refusal(path), undefined, what);
    };
    await check("version 2", 20);
    // Version 3: an entry with extended flags (skip-worktree), another intent-to-add.
    await Deno.writeTextFile(join(dir, "new.txt"), "new\n");
    await f.git(dir, "add", "--intent-to-add", "new.txt");
    await f.git(dir, "update-index", "--skip-worktree", "README.md");
    assert.equal(new DataView((await Deno.readFile(path)).buffer).getUint32(4), 3);
    await check("version 3", 20);
    await f.git(dir, "update-index", "--index-version", "4");
    await check("version 4", 20);
    // Four blocks for git's threads: an end-of-entries marker and an entry offset table.
    await f.git(dir, "-c", "index.threads=4", "update-index", "--force-write-index");
    assert.ok(find(await Deno.readFile(path), "IEOT") > 0);
    await check("version 4 with an entry offset table", 20);
    await f.git(dir, "update-index", "--index-version", "2");
    await f.git(dir, "-c", "index.threads=4", "update-index", "--force-write-index");
    await check("version 3 with an entry offset table", 20);

    const sha256 = join(f.base, "sha256");
    await Deno.mkdir(sha256);
    await f.git(sha256, "init", "-q", "--object-format=sha256");
    await Deno.writeTextFile(join(sha256, "a.txt"), "a\n");
    await f.git(sha256, "add", "a.txt");
    const bytes = await Deno.readFile(join(sha256, ".git", "index"));
    assert.equal(indexShape(bytes, 32, 64 * MIB).heldBytes, ENTRY_BYTES + 5);
    assert.ok(indexShape(bytes, 20, 64 * MIB).damaged !== undefined);
    assert.equal(await refusal(join(sha256, ".git", "index"), 64 * MIB, () => Promise.resolve(32)), undefined);
    // No index at all (nothing added yet) passes.
    assert.equal(await refusal(join(f.base, "none", "index")), undefined);
  } finally {
    await f.end();
  }
});

Deno.test("indexShape() refuses a version-4 index whose names, expanded, take git past the limit, without building them", () => {
  // Each name is the previous one plus a byte: 20,000 entries of 65 bytes hold 200 MB of names once read.
  const entries = Array.from({ length: 20_000 }, (_, i) => entry(4, "a", { length: i + 1 }));
  const bomb = index(4, entries);
  assert.equal(bomb.length, 12 + 20_000 * 65 + 20);
  const shape = indexShape(bomb, 20, 64 * MIB);
  assert.match(
    shape.refused ?? "",
    /^holds 20000 entries whose names, expanded, take git over 64 MiB .* by entry 11\d\d\d \(version 4/,
  );
  assert.ok(shape.heldBytes > 64 * MIB && shape.heldBytes < 64 * MIB + 20_000);
  // The first 1,000 alone: exactly 1,000 entries and 500,500 bytes of names.
  const small = index(4, entries.slice(0, 1000));
  assert.equal(indexShape(small, 20, 64 * MIB).heldBytes, 1000 * ENTRY_BYTES + 500_500);
  // Past 4,095 bytes a name's length is 0xFFF and the name ends at its NUL: its kept part still counts.
  const long = index(4, [
    entry(4, "x".repeat(5000)),
    entry(4, "y", { strip: 1, length: 5000 }),
    entry(4, "z", { strip: 0, length: 5001 }),
  ]);
  assert.equal(indexShape(long, 20, 64 * MIB).heldBytes, 3 * ENTRY_BYTES + 5000 + 5000 + 5001);
  const v2 = index(2, [entry(2, "x".repeat(5000))]);
  assert.equal(indexShape(v2, 20, 64 * MIB).heldBytes, ENTRY_BYTES + 5000);
  // More entries than the limit holds at ENTRY_BYTES each: refused from the header alone.
  const many = new Uint8Array(32);
  new DataView(many.buffer).setUint32(0, 0x44495243);
  new DataView(many.buffer).setUint32(4, 2);
  new DataView(many.buffer).setUint32(8, 0xffffffff);
  assert.match(indexShape(many, 20, 64 * MIB).refused ?? "", /holds 4294967295 entries, which take git over 64 MiB/);
});

Deno.test("assertIndexShape() refuses a sparse index, a folder entry and a split index, saying how to make a plain one", async () => {
  const f = await fixture();
  try {
    const sparse = await f.repo("sparse", { "in/a.txt": "a\n", "out/b.txt": "b\n", "out/deep/c.txt": "c\n" });
    await f.git(sparse, "sparse-checkout", "set", "--cone", "--sparse-index", "in");
    const refused = await refusal(join(sparse, ".git", "index"));
    assert.equal(refused?.code, "invalid-input");
    assert.match(
      refused?.message ?? "",
      /^Cannot read the index of repo "app": its index holds a folder entry \(mode 040000, entry 2 of 2\), as a sparse index does, .* `git sparse-checkout set --no-sparse-index`$/,
    );
    // The fix it names.
    await f.git(sparse, "sparse-checkout", "set", "--no-sparse-index", "in");
    assert.equal(await refusal(join(sparse, ".git", "index")), undefined);
    // The extension without a folder entry, and a folder entry without the extension.
    const sdir = await Deno.makeTempFile({ dir: f.base });
    await Deno.writeFile(sdir, index(2, [entry(2, "a.txt")], [extension("sdir")]));
    assert.match(
      (await refusal(sdir))?.message ?? "",
      /its index is a sparse index \(the "sdir" extension\).*`git sparse-checkout disable`/,
    );
    await Deno.writeFile(sdir, index(3, [entry(3, "s/", { mode: 0o040000 })]));
    assert.match((await refusal(sdir))?.message ?? "", /holds a folder entry \(mode 040000, entry 1 of 1\)/);

    const split = await f.repo("split", { "a.txt": "a\n" });
    await f.git(split, "update-index", "--split-index");
    const message = (await refusal(join(split, ".git", "index")))?.message ?? "";
    assert.match(message, /its index is a split index \(the "link" extension\).*`git update-index --no-split-index`/);
    await f.git(split, "update-index", "--no-split-index");
    assert.equal(await refusal(join(split, ".git", "index")), undefined);
  } finally {
    await f.end();
  }
});

Deno.test("indexShape() refuses an end-of-entries marker or entry offset table that disagrees with the entries git's threads read", async () => {
  const f = await fixture();
  try {
    const files: Record<string, string> = {};
    for (let i = 0; i < 40; i++) files[`dir/file-${i}.txt`] = `${i}\n`;
    const dir = await f.repo("app", files);
    await f.git(dir, "update-index", "--index-version", "4");
    await f.git(dir, "-c", "index.threads=4", "update-index", "--force-write-index");
    const good = await Deno.readFile(join(dir, ".git", "index"));
    assert.equal(indexShape(good, 20, 64 * MIB).refused, undefined);
    const table = find(good, "IEOT");
    const eoie = good.length - 20 - 32;
    const tampered = (at: number, change: (value: number) => number) => {
      const bytes = good.slice();
      const view = new DataView(bytes.buffer);
      view.setUint32(at, change(view.getUint32(at)));
      return indexShape(bytes, 20, 64 * MIB).refused ?? "";
    };
    const disagrees = /end-of-entries marker \(EOIE\) or entry offset table \(IEOT\) that disagrees/;
    // The second block one byte further, or one entry longer; the extensions said to start elsewhere.
    assert.match(tampered(table + 8 + 4 + 8, (offset) => offset + 1), disagrees);
    assert.match(tampered(table + 8 + 4 + 8 + 4, (count) => count + 1), disagrees);
    assert.match(tampered(eoie + 8, (offset) => offset - 8), disagrees);
    // A block whose first name keeps bytes of the previous one: read alone by a thread, it would be another name.
    const second = new DataView(good.buffer).getUint32(table + 8 + 4 + 8);
    const strip = good.slice();
    strip[second + 62] = 0;
    assert.match(indexShape(strip, 20, 64 * MIB).refused ?? "", disagrees);
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexShape() refuses a damaged index, an oversized one or one that is no file, in its own words", async () => {
  const f = await fixture();
  try {
    const path = join(f.base, "index");
    const words = async (bytes: Uint8Array, maxBytes = 64 * MIB) => {
      await Deno.writeFile(path, bytes);
      return (await refusal(path, maxBytes))?.message ?? "";
    };
    const damaged =
      /^Cannot read the index of repo "app": its index is damaged \((.*)\), so git cannot read it either; remove it and run `git reset`/;
    const good = index(4, [entry(4, "a.txt"), entry(4, "b.txt", { strip: 5 })]);
    assert.equal(await words(good), "");
    assert.match(await words(good.subarray(0, 30)), damaged);
    assert.match(await words(good.subarray(0, good.length - 30)), /entry 2 of 2 runs past the end of the file/);
    assert.match(await words(index(5, [])), /its version is 5, not 2, 3 or 4/);
    assert.match(await words(new Uint8Array(64)), /it does not start with "DIRC"/);
    assert.match(await words(index(4, [entry(4, "a.txt"), entry(4, "b", { strip: 6 })])), /strips more than/);
    assert.match(await words(index(2, [entry(2, "a")], [extension("zzzz")])), /an extension "zzzz" git does not know/);
    assert.match(await words(good, 100), /its index is 170 bytes, more than the 0\.0000\d+ MiB git may hold/);
    const over = (await refusal(path, 100))!;
    assert.equal(over.code, "too-large");
    // An unknown extension git skips (A to Z) passes.
    assert.equal(await words(index(2, [entry(2, "a")], [extension("ZZZZ", new Uint8Array(3))])), "");
    await Deno.remove(path);
    await Deno.mkdir(path);
    assert.match((await refusal(path))?.message ?? "", /its index is not a regular file/);
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexShape() asks the object id size only when one reading refuses and the other does not", async () => {
  const f = await fixture();
  try {
    // A folder entry read with 20-byte ids; with 32-byte ids its name runs past the end.
    const path = join(f.base, "index");
    await Deno.writeFile(path, index(3, [entry(3, "s/", { mode: 0o040000 })]));
    let asked = 0;
    const answer = (size: number) => () => (asked++, Promise.resolve(size));
    assert.match((await refusal(path, 64 * MIB, answer(20)))?.message ?? "", /holds a folder entry/);
    assert.match((await refusal(path, 64 * MIB, answer(32)))?.message ?? "", /is damaged \(entry 1 of 1 runs past/);
    assert.equal(asked, 2);
  } finally {
    await f.end();
  }
});

Deno.test("git_commit in a repository whose config asks for a split or sparse index writes a plain one, which the next call reads", async () => {
  const f = await fixture();
  try {
    const split = await f.repo("wsplit", { "a.txt": "a\n" });
    await f.git(split, "config", "core.splitIndex", "true");
    const sparse = await f.repo("wsparse", { "in/a.txt": "a\n", "out/b.txt": "b\n" });
    await f.git(sparse, "sparse-checkout", "set", "--cone", "--no-sparse-index", "in");
    await f.git(sparse, "config", "--worktree", "index.sparse", "true");
    const manager = f.manager({ wsplit: split, wsparse: sparse });
    for (const [repo, dir, file] of [["wsplit", split, "a.txt"], ["wsparse", sparse, "in/a.txt"]]) {
      await Deno.writeTextFile(join(dir, file), "changed\n");
      await manager.commit(repo, "change", [file]);
      assert.equal((await manager.status(repo)).text, "## main\n", repo);
    }
    // Plain git, from the same config, splits and sparsifies.
    await Deno.writeTextFile(join(split, "a.txt"), "again\n");
    await f.git(split, "commit", "-qam", "again");
    await assert.rejects(manager.status("wsplit"), /its index is a split index/);
  } finally {
    await f.end();
  }
});

/** An untracked cache (`UNTR`): a root folder of `folders` subfolders, each listing `names` empty names. */
function untracked(folders: number, names: number): Uint8Array {
  const head = [...varint(1), 0x78, ...new Uint8Array(76 + 40), ...encoder.encode(".gitignore\0")];
  const parts = [new Uint8Array([...head, ...varint(1 + folders), ...varint(0), ...varint(folders), 0])];
  for (let i = 0; i < folders; i++) {
    parts.push(new Uint8Array([...varint(names), ...varint(0), ...encoder.encode(`d${i}\0`)]), new Uint8Array(names));
  }
  parts.push(new Uint8Array(64));
  const bytes = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((at, part) => (bytes.set(part, at), at + part.length), 0);
  return extension("UNTR", bytes);
}

/** A cache tree (`TREE`): a root of the subtrees named, each with no entries and no subtrees. */
function cacheTree(names: string[]): Uint8Array {
  return extension("TREE", encoder.encode(`\0-1 ${names.length}\n${names.map((name) => `${name}\0-1 0\n`).join("")}`));
}

/** Resolve-undo records (`REUC`) of the paths named, each with no stage. */
function resolveUndo(names: string[]): Uint8Array {
  return extension("REUC", encoder.encode(names.map((name) => `${name}\x000\x000\x000\x00`).join("")));
}

/** `count` names of three letters, in git's order. */
function names(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) => [i >> 10, (i >> 5) & 31, i & 31].map((n) => String.fromCharCode(65 + n)).join(""),
  );
}

Deno.test("indexShape() charges what git holds for the extensions it loads (untracked cache, cache tree, resolve-undo), as real git writes them and as crafted", async () => {
  const f = await fixture();
  try {
    const files: Record<string, string> = { "a.txt": "a\n" };
    for (let i = 0; i < 30; i++) files[`src/m${i % 3}/f${i}.ts`] = `${i}\n`;
    const dir = await f.repo("app", files);
    const path = join(dir, ".git", "index");
    // A cache tree (after the commit), an untracked cache filled by a status, resolve-undo records of a conflict.
    await f.git(dir, "update-index", "--untracked-cache");
    await Deno.writeTextFile(join(dir, "src", "m1", "new.ts"), "new\n");
    await f.git(dir, "status", "--porcelain");
    await f.git(dir, "checkout", "-q", "-b", "other");
    await Deno.writeTextFile(join(dir, "a.txt"), "other\n");
    await f.git(dir, "commit", "-qam", "other");
    await f.git(dir, "checkout", "-q", "main");
    await Deno.writeTextFile(join(dir, "a.txt"), "main\n");
    await f.git(dir, "commit", "-qam", "main");
    await f.git(dir, "merge", "-q", "other").catch(() => undefined);
    await Deno.writeTextFile(join(dir, "a.txt"), "resolved\n");
    await f.git(dir, "add", "a.txt");
    const bytes = await Deno.readFile(path);
    for (const signature of ["TREE", "UNTR", "REUC"]) assert.ok(find(bytes, signature) > 0, signature);
    const shape = indexShape(bytes, 20, 64 * MIB);
    assert.equal(shape.refused ?? shape.damaged, undefined);
    assert.ok(shape.extensionBytes > 0 && shape.extensionBytes < 20_000, `${shape.extensionBytes}`);
    assert.equal(await refusal(path), undefined);

    // 200,000 empty untracked names: 200 KB on disk, 8 MB in git (an 8-byte slot and a 32-byte copy each).
    const one = [entry(2, "a.txt")];
    const untr = indexShape(index(2, one, [untracked(4, 50_000)]), 20, 64 * MIB);
    assert.equal(untr.refused, undefined);
    assert.ok(untr.extensionBytes >= 200_000 * 40, `${untr.extensionBytes}`);
    await Deno.writeFile(path, index(2, one, [untracked(4, 50_000)]));
    const refused = await refusal(path, 4 * MIB);
    assert.equal(refused?.code, "too-large");
    assert.match(
      refused?.message ?? "",
      /its index holds an untracked cache \(the "UNTR" extension\) that git would hold, with the entries, in more memory than alloc_limit_mib allows .*`git update-index --no-untracked-cache`/,
    );
    // 30,000 subtrees of 9 bytes: 270 KB on disk, 4 MB in git; 30,000 records of 10 bytes: 300 KB and 6 MB.
    const tree = indexShape(index(2, one, [cacheTree(names(30_000))]), 20, 64 * MIB);
    assert.ok(tree.refused === undefined && tree.extensionBytes >= 30_000 * 136, `${tree.extensionBytes}`);
    assert.match(
      indexShape(index(2, one, [cacheTree(names(30_000))]), 20, 2 * MIB).refused ?? "",
      /"TREE".*alloc_limit_mib.*`rm \.git\/index && git reset`/,
    );
    const reuc = indexShape(index(2, one, [resolveUndo(names(30_000))]), 20, 64 * MIB);
    assert.ok(reuc.refused === undefined && reuc.extensionBytes >= 30_000 * 200, `${reuc.extensionBytes}`);
    assert.match(
      indexShape(index(2, one, [resolveUndo(names(30_000))]), 20, 4 * MIB).refused ?? "",
      /"REUC".*alloc_limit_mib.*`git update-index --clear-resolve-undo`/,
    );
    // Out of order, git sorts each in, moving all after it: quadratic. Refused, in order or not by length first.
    const reversed = names(3).reverse();
    assert.match(
      indexShape(index(2, one, [resolveUndo(reversed)]), 20, 64 * MIB).refused ?? "",
      /"REUC".*out of order/,
    );
    assert.match(
      indexShape(index(2, one, [cacheTree(reversed)]), 20, 64 * MIB).refused ?? "",
      /"TREE".*subtrees out of order/,
    );
    assert.match(indexShape(index(2, one, [cacheTree(["bb", "a"])]), 20, 64 * MIB).refused ?? "", /out of order/);
    assert.equal(indexShape(index(2, one, [cacheTree(["b", "aa"])]), 20, 64 * MIB).refused, undefined);
  } finally {
    await f.end();
  }
});

Deno.test("an untracked cache git filled past the limit is refused, and passes after the fix the refusal names", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("app", { "a.txt": "a\n" });
    const path = join(dir, ".git", "index");
    await f.git(dir, "update-index", "--untracked-cache");
    for (let i = 0; i < 2000; i++) await Deno.writeFile(join(dir, `u${i}`), new Uint8Array());
    await f.git(dir, "status", "--porcelain");
    assert.match((await refusal(path, 64 * 1024))?.message ?? "", /"UNTR"/);
    await f.git(dir, "update-index", "--no-untracked-cache");
    assert.equal(await refusal(path, 64 * 1024), undefined);
  } finally {
    await f.end();
  }
});

Deno.test("assertIndexShape() reads the index in chunks of INDEX_CHUNK bytes, whatever its size", async () => {
  const f = await fixture();
  try {
    const path = join(f.base, "index");
    // An extension git skips of 1 MiB, then an untracked cache git would hold past the limit.
    const bytes = index(2, [entry(2, "a.txt")], [extension("ZZZZ", new Uint8Array(MIB)), untracked(1, 200_000)]);
    await Deno.writeFile(path, bytes);
    const reads: number[] = [];
    const onRead = (_at: number, length: number) => void reads.push(length);
    await assert.rejects(assertIndexShape("app", path, { maxBytes: 4 * MIB, hashSize: sha1, onRead }), /"UNTR"/);
    assert.ok(reads.length > 2, `${reads.length} reads`);
    assert.ok(reads.every((length) => length <= INDEX_CHUNK), `${Math.max(...reads)}`);
    assert.equal(INDEX_CHUNK, 64 * 1024);
  } finally {
    await f.end();
  }
});
