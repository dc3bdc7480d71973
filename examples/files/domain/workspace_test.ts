// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertNoLeak, makeTree, symlink, workspaceOf } from "./_fixture.ts";
import { inside } from "./workspace.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit", run: ["ln"] };

// A tree made before the tests, so one test can be granted exactly its first root.
const narrow = await makeTree();
addEventListener("unload", () => Deno.removeSync(narrow.base, { recursive: true }));

Deno.test({
  name: "resolve() gives the real path, its root as configured and a root-relative path",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const got = await ws.resolve("notes/todo.md", "read");
    assert.deepEqual({ root: got.root, rel: got.rel }, { root: tree.data, rel: "notes/todo.md" });
    assert.equal(got.real, join(tree.data, "notes", "todo.md"));
    const second = await ws.resolve(join(tree.more, "other.md"), "read");
    assert.deepEqual({ root: second.root, rel: second.rel }, { root: tree.more, rel: "other.md" });
    assert.equal((await ws.resolve(".", "read")).rel, "");
    await tree.remove();
  },
});

Deno.test({
  name: "resolve() starts relative writes at the first writable root and refuses writes to read roots",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    assert.equal((await ws.resolve("new.txt", "write")).real, join(tree.out, "new.txt"));
    await assert.rejects(ws.resolve(join(tree.data, "hello.txt"), "write"), PolicyError);
    await tree.remove();
  },
});

Deno.test({
  name: "resolve() refuses .., a sibling prefix and a symlink out, naming only the caller's path",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.mkdir(`${tree.data}2`);
    await symlink(join(tree.outside, "canary.txt"), join(tree.data, "link.txt"));
    const ws = await workspaceOf(tree.config);
    for (const path of ["../outside/canary.txt", `${tree.data}2/x`, "link.txt", join(tree.outside, "canary.txt")]) {
      const err = await ws.resolve(path, "read").then(() => undefined, (e) => e);
      assert.ok(err instanceof PolicyError, path);
      if (!path.startsWith("/")) assertNoLeak(tree, err.message);
    }
    await Deno.remove(`${tree.data}2`);
    await tree.remove();
  },
});

Deno.test({
  name: "the server's own files are denied inside a root, by configured and by real path",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const configFile = join(tree.data, "files.json");
    await Deno.writeTextFile(configFile, "{}");
    const ws = await workspaceOf({ ...tree.config, roots: [tree.data], writable_roots: [tree.data] }, [configFile]);
    await assert.rejects(ws.resolve("files.json", "read"), /the policy denies this path/);
    await assert.rejects(ws.resolve("files.json", "write"), /the policy denies this path/);
    assert.equal((await ws.resolve("hello.txt", "read")).rel, "hello.txt");
    await tree.remove();
  },
});

Deno.test({
  name: "a root the process was not started with is refused with a restart hint; the granted root still works",
  permissions: { read: [narrow.data] },
  async fn() {
    // Layer 2 holds: Deno itself refuses the second root.
    await assert.rejects(Deno.readTextFile(join(narrow.more, "other.md")), Deno.errors.NotCapable);
    const ws = await workspaceOf({ ...narrow.config, writable_roots: [] });
    assert.equal((await ws.resolve("hello.txt", "read")).root, narrow.data);
    await assert.rejects(
      ws.resolve(join(narrow.more, "other.md"), "read"),
      /outside what this process was started with; restart the server with the flags from --print-permissions/,
    );
  },
});

Deno.test({
  name: "when the first root is not granted, relative paths are refused with the restart hint, not re-based",
  permissions: { read: [narrow.more] },
  async fn() {
    const ws = await workspaceOf({ ...narrow.config, writable_roots: [] });
    await assert.rejects(ws.resolve("hello.txt", "read"), /restart the server/);
    await assert.rejects(ws.resolve("../outside/canary.txt", "read"), /leaves the allowed folders/);
    assert.equal((await ws.resolve(join(narrow.more, "other.md"), "read")).rel, "other.md");
  },
});

Deno.test({
  name: "a missing root is reported as missing, and the workspace asks to be rebuilt",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const gone = join(tree.base, "not-yet");
    const ws = await workspaceOf({ ...tree.config, roots: [tree.data, gone] });
    assert.equal(ws.complete, false);
    await assert.rejects(ws.resolve(join(gone, "x.txt"), "read"), /its root folder does not exist/);
    assert.equal((await ws.resolve("hello.txt", "read")).rel, "hello.txt");
    assert.equal((await workspaceOf(tree.config)).complete, true);
    await tree.remove();
  },
});

Deno.test("inside() compares path segments, never string prefixes", () => {
  assert.equal(inside("/data", "/data"), true);
  assert.equal(inside("/data", "/data/x"), true);
  assert.equal(inside("/data", "/data2/x"), false);
  assert.equal(inside("/data", "/"), false);
  assert.equal(inside("/data", "/data/..x"), true);
});
