// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { type ListDirOptions, PolicyError } from "@forge/toolkit/validate";
import { assertNoLeak, makeTree, symlink, workspaceOf } from "./_fixture.ts";
import { searchFiles } from "./search.ts";
import type { Workspace } from "./workspace.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit", run: ["ln"] };

Deno.test({
  name: "searchFiles() finds names by glob and by substring, shallowest first, paths relative to the root",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const md = await searchFiles(ws, ".", "*.md");
    assert.equal(md.root, tree.data);
    assert.deepEqual(md.matches.map((m) => m.path), ["notes/done.md", "notes/todo.md", "deep/a/b/deep.md"]);
    assert.equal(md.truncated, false);
    assert.deepEqual(md.limits_hit, []);
    const sub = await searchFiles(ws, "notes", "TODO");
    assert.deepEqual(sub.matches, [{ name: "todo.md", path: "notes/todo.md", type: "file", size: 14 }]);
    assert.equal(sub.path, "notes");
    await tree.remove();
  },
});

Deno.test({
  name: "searchFiles() never follows a symlink out of the root and never lists denied entries",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.writeTextFile(join(tree.outside, "secret.md"), tree.canary);
    await symlink(tree.outside, join(tree.data, "linked-dir"));
    await Deno.mkdir(join(tree.data, ".git"));
    await Deno.writeTextFile(join(tree.data, ".git", "config.md"), "");
    const ws = await workspaceOf(tree.config);
    const all = await searchFiles(ws, ".", "*");
    const paths = all.matches.map((m) => m.path);
    assert.ok(paths.includes("linked-dir"), "the link itself is a name inside the root");
    assert.equal(all.matches.find((m) => m.path === "linked-dir")?.type, "symlink");
    assert.ok(!paths.some((p) => p.startsWith("linked-dir/")), "not followed");
    assert.ok(!paths.some((p) => p.includes(".git") || p.includes(".env")), "denied entries stay hidden");
    assertNoLeak(tree, JSON.stringify(all));
    await tree.remove();
  },
});

Deno.test({
  name: "searchFiles() starting inside a denied folder is refused, and a search above it never reports what is in it",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.mkdir(join(tree.data, "secrets", "inner"), { recursive: true });
    await Deno.writeTextFile(join(tree.data, "secrets", "inner", "key.md"), tree.canary);
    const ws = await workspaceOf({ ...tree.config, deny: ["**/secret*"] });
    for (const path of ["secrets", "secrets/inner"]) {
      await assert.rejects(
        searchFiles(ws, path, "*"),
        (err: unknown) => err instanceof PolicyError && err.code === "denied-by-glob",
        path,
      );
    }
    const all = await searchFiles(ws, ".", "*");
    assert.ok(!all.matches.some((m) => m.path.startsWith("secrets")), JSON.stringify(all.matches));
    await tree.remove();
  },
});

Deno.test({
  name: "searchFiles() reports each bound that cut it short: depth, results, entries, time",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const shallow = await searchFiles(ws, ".", "*.md", { maxDepth: 1 });
    assert.deepEqual(shallow.matches.map((m) => m.path), ["notes/done.md", "notes/todo.md"]);
    assert.deepEqual([shallow.truncated, shallow.limits_hit], [true, ["max_depth"]]);
    const one = await searchFiles(ws, ".", "*.md", { maxResults: 1 });
    assert.deepEqual([one.matches.length, one.limits_hit], [1, ["max_results"]]);
    const few = await searchFiles(ws, ".", "*", { maxEntries: 2 });
    assert.deepEqual(few.limits_hit, ["max_entries"]);
    const late = await searchFiles(ws, ".", "*", { timeMs: 0 });
    assert.deepEqual([late.matches, late.limits_hit], [[], ["time"]]);
    await tree.remove();
  },
});

Deno.test({
  name:
    "searchFiles() hands each listing the time left of its bound and its signal: one folder's listing cannot run past the bound",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const given: ListDirOptions[] = [];
    // The real workspace, its listings recorded: the time a listing gets is the search's to give.
    const recorded = {
      resolve: ws.resolve.bind(ws),
      listDir: (path: string, jailPath: string, options: ListDirOptions) => {
        given.push(options);
        return ws.listDir(path, jailPath, options);
      },
    } as unknown as Workspace;
    const signal = new AbortController().signal;
    const found = await searchFiles(recorded, ".", "*.md", { timeMs: 60_000, signal });
    assert.equal(found.matches.length, 3);
    assert.ok(given.length >= 4, `${given.length} listings`);
    for (const options of given) {
      assert.ok(options.timeMs !== undefined && options.timeMs >= 0 && options.timeMs <= 60_000, `${options.timeMs}`);
      assert.equal(options.signal, signal);
    }
    await tree.remove();
  },
});

Deno.test({
  name: "searchFiles() rejects when its signal is aborted (the call's deadline), and refuses bad input",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    await assert.rejects(
      searchFiles(ws, ".", "*", { signal: AbortSignal.abort() }),
      (e: Error) => e.name === "AbortError",
    );
    await assert.rejects(searchFiles(ws, "hello.txt", "*"), /it is a file, not a folder/);
    await assert.rejects(searchFiles(ws, "..", "*"), PolicyError);
    await assert.rejects(searchFiles(ws, ".", "a/b"), /matches names, not paths/);
    await tree.remove();
  },
});

Deno.test({
  name: "searchFiles() skips a folder too large to list and says so in limits_hit, and still finds what is elsewhere",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const huge = join(tree.data, "huge");
    await Deno.mkdir(huge);
    const stem = "n".repeat(240);
    let count = 0;
    while (Deno.statSync(huge).size <= 2 * 1024 * 1024) {
      assert.ok(count < 100_000, "this file system does not grow a folder's size with its entries");
      for (let i = 0; i < 500; i++) {
        Deno.openSync(join(huge, `${stem}${count++}`), { create: true, write: true }).close();
      }
    }
    const found = await searchFiles(ws, ".", "*.md");
    assert.deepEqual(found.matches.map((m) => m.path), ["notes/done.md", "notes/todo.md", "deep/a/b/deep.md"]);
    assert.equal(found.truncated, true);
    assert.deepEqual(found.limits_hit, ["folder_size"]);
    // Started at the folder itself, the refusal is the answer.
    await assert.rejects(
      () => searchFiles(ws, "huge", "x"),
      (err: unknown) => err instanceof PolicyError && err.code === "too-large",
    );
    await tree.remove();
  },
});

Deno.test({
  name:
    "searchFiles() says what it could not look at: names no path can hold (unlisted), and folders more than 256 levels below the root (unreadable)",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    // A folder whose name holds a newline: its listing leaves it out, and the file in it is never searched.
    await Deno.mkdir(join(tree.data, "odd", "nl\ndir"), { recursive: true });
    await Deno.writeTextFile(join(tree.data, "odd", "nl\ndir", "target-1.txt"), "");
    await Deno.writeTextFile(join(tree.data, "odd", "target-0.txt"), "");
    const odd = await searchFiles(ws, "odd", "target");
    assert.deepEqual(odd.matches.map((m) => m.path), ["odd/target-0.txt"]);
    assert.equal(odd.truncated, true);
    assert.deepEqual(odd.limits_hit, ["unlisted"]);
    // 262 levels, a target at each: from level 250, levels past 256 below the root cannot be listed.
    let folder = join(tree.data, "down");
    let rel = "down";
    const start: string[] = [];
    for (let level = 0; level < 262; level++) {
      folder = join(folder, "d");
      rel = `${rel}/d`;
      if (level === 249) start.push(rel);
    }
    await Deno.mkdir(folder, { recursive: true });
    for (let level = 0, at = join(tree.data, "down"); level < 262; level++) {
      at = join(at, "d");
      await Deno.writeTextFile(join(at, `target-${level}.txt`), "");
    }
    const deep = await searchFiles(ws, start[0], "target-");
    assert.ok(deep.matches.length > 0 && deep.matches.length < 12, `${deep.matches.length} matches`);
    assert.equal(deep.truncated, true);
    assert.deepEqual(deep.limits_hit, ["unreadable"]);
    await tree.remove();
  },
});
