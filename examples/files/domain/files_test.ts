// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertNoLeak, makeTree, symlink, workspaceOf } from "./_fixture.ts";
import { MAX_BYTES_CEILING } from "./config.ts";
import { writeAtomic } from "./atomic_write.ts";
import { listDir, MAX_LIST_ENTRIES, readText, statPath } from "./files.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit", run: ["ln"] };

Deno.test({
  name: "readText() at the largest max_bytes answers a file of control characters in a reply that fits one message",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    // JSON writes each as \u0001, six bytes: the worst a byte of text can grow (U+FFFD for a bad byte is three).
    const cap = 64 * 1024;
    await Deno.writeFile(join(tree.data, "ctl.txt"), new Uint8Array(cap + 1).fill(1));
    const { text, marker } = await readText(await workspaceOf(tree.config), "ctl.txt", cap);
    assert.equal(marker, `[truncated: showed ${cap} of ${cap + 1} bytes]`);
    assert.equal(JSON.stringify(text).length - 2, 6 * cap);
    // The reply of read_file (two text blocks, a long id) at the ceiling, against the toolkit's default
    // maxMessageBytes of 64 MiB; it grows as the text does (stringifying 10 MiB of it here would take a second).
    const content = [{ type: "text", text: "" }, { type: "text", text: marker }];
    const reply = { jsonrpc: "2.0", id: "x".repeat(1024), result: { content } };
    assert.ok(JSON.stringify(reply).length + 6 * MAX_BYTES_CEILING <= 64 * 1024 * 1024);
    await tree.remove();
  },
});

Deno.test({
  name: "readText() reads a text file inside a root",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    assert.deepEqual(await readText(ws, "hello.txt", 1024), { text: "hello\n" });
    assert.deepEqual(await readText(ws, join(tree.more, "other.md"), 1024), { text: "in the second root\n" });
    await tree.remove();
  },
});

Deno.test({
  name: "readText() cuts a file over max_bytes with a marker, never inside a character",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.writeTextFile(join(tree.data, "long.txt"), "é".repeat(10));
    const ws = await workspaceOf(tree.config);
    assert.deepEqual(await readText(ws, "long.txt", 5), { text: "éé", marker: "[truncated: showed 4 of 20 bytes]" });
    await tree.remove();
  },
});

Deno.test({
  name: "readText() refuses a binary file, a folder, .env and a symlink that leaves the root",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.writeFile(join(tree.data, "blob.bin"), new Uint8Array([0x50, 0x4b, 0, 1]));
    await symlink(join(tree.outside, "canary.txt"), join(tree.data, "escape.txt"));
    const ws = await workspaceOf(tree.config);
    // Layer 2 alone would allow the link: Deno checks where a path is, not where it leads.
    assert.equal(await Deno.readTextFile(join(tree.data, "escape.txt")), tree.canary);
    const cases: [string, RegExp][] = [
      ["blob.bin", /looks binary/],
      ["notes", /not a regular file|folder/],
      [".env", /the policy denies this path/],
      ["escape.txt", /symbolic link that leads outside/],
      ["../outside/canary.txt", /leaves the allowed folders/],
      ["missing.txt", /no such file or folder/],
    ];
    for (const [path, reason] of cases) {
      const err = await readText(ws, path, 1024).then(() => undefined, (e) => e);
      assert.ok(err instanceof PolicyError, path);
      assert.match(err.message, reason, path);
      assertNoLeak(tree, err.message);
    }
    await tree.remove();
  },
});

Deno.test({
  name: "listDir() lists sorted entries with root-relative paths, hides denied ones, shows links unfollowed",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await symlink(tree.outside, join(tree.data, "out-link"));
    await symlink(join(tree.data, ".env"), join(tree.data, "env-link"));
    const ws = await workspaceOf(tree.config);
    const listing = await listDir(ws, ".");
    assert.equal(listing.root, tree.data);
    assert.equal(listing.path, ".");
    assert.deepEqual(listing.entries, [
      { name: "deep", path: "deep", type: "dir" },
      { name: "hello.txt", path: "hello.txt", type: "file", size: 6 },
      { name: "notes", path: "notes", type: "dir" },
      { name: "out-link", path: "out-link", type: "symlink" },
    ]);
    const notes = await listDir(ws, "notes");
    assert.deepEqual(notes.entries.map((e) => e.path), ["notes/done.md", "notes/todo.md"]);
    assertNoLeak(tree, JSON.stringify([listing, notes]));
    await assert.rejects(listDir(ws, "out-link"), /symbolic link that leads outside/);
    await assert.rejects(listDir(ws, "hello.txt"), /it is a file, not a folder/);
    await assert.rejects(listDir(ws, ".."), /leaves the allowed folders/);
    await tree.remove();
  },
});

Deno.test({
  name: "listDir() of a folder over the cap returns the first 1000 entries by name and says it was truncated",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const many = join(tree.data, "many");
    await Deno.mkdir(many);
    // Created in reverse so directory order and name order differ.
    const names = Array.from({ length: MAX_LIST_ENTRIES + 500 }, (_, i) => `f${String(i).padStart(5, "0")}`);
    for (const name of [...names].reverse()) Deno.writeTextFileSync(join(many, name), "");
    const listing = await listDir(await workspaceOf(tree.config), "many");
    assert.deepEqual(listing.entries.map((e) => e.name), names.slice(0, MAX_LIST_ENTRIES));
    assert.equal(listing.truncated, true);
    await tree.remove();
  },
});

Deno.test({
  name: "listDir() and readText() stop when their signal is aborted",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const signal = AbortSignal.abort();
    await assert.rejects(listDir(ws, ".", signal), (err: Error) => err.name === "AbortError");
    await assert.rejects(readText(ws, "hello.txt", 1024, signal), (err: Error) => err.name === "AbortError");
    await tree.remove();
  },
});

Deno.test({
  name: "statPath() describes a file and a folder relative to their root, and refuses what the jail refuses",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const file = await statPath(ws, "notes/todo.md");
    assert.deepEqual({ ...file, modified: typeof file.modified }, {
      root: tree.data,
      path: "notes/todo.md",
      type: "file",
      size: 14,
      modified: "string",
    });
    assert.equal((await statPath(ws, ".")).type, "dir");
    assert.equal((await statPath(ws, ".")).path, ".");
    await assert.rejects(statPath(ws, ".env"), PolicyError);
    await assert.rejects(statPath(ws, "../outside"), PolicyError);
    await tree.remove();
  },
});

Deno.test({
  name: "readText() keeps a file's byte-order mark, so a file read and written back keeps its bytes",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("bom-text\n")]);
    await Deno.writeFile(join(tree.out, "bom.txt"), bytes);
    const { text } = await readText(ws, join(tree.out, "bom.txt"), 1024);
    assert.equal(text, "\ufeffbom-text\n");
    await writeAtomic(ws, "bom.txt", text, { maxBytes: 1024 });
    assert.deepEqual(await Deno.readFile(join(tree.out, "bom.txt")), bytes);
    await tree.remove();
  },
});
