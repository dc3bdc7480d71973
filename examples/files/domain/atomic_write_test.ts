// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { LimitError, PolicyError, quote } from "@forge/toolkit/validate";
import { assertNoLeak, hardlink, makeTree, symlink, workspaceOf } from "./_fixture.ts";
import { planWrite, writeAtomic } from "./atomic_write.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit", run: ["ln"] };

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test({
  name: "writeAtomic() creates a file, then replaces it, keeping its mode and leaving no temp file",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    assert.deepEqual(await writeAtomic(ws, "new.txt", "first", { maxBytes: 1024 }), {
      root: tree.out,
      path: "new.txt",
      bytes: 5,
      created: true,
    });
    await Deno.chmod(join(tree.out, "new.txt"), 0o640);
    const again = await writeAtomic(ws, "new.txt", "second", { maxBytes: 1024 });
    assert.equal(again.created, false);
    assert.equal(await Deno.readTextFile(join(tree.out, "new.txt")), "second");
    assert.equal((await Deno.stat(join(tree.out, "new.txt"))).mode! & 0o777, 0o640);
    assert.equal(await writeAtomic(ws, "empty.txt", "", { maxBytes: 1024 }).then((r) => r.bytes), 0);
    assert.deepEqual(await names(tree.out), ["empty.txt", "existing.txt", "new.txt"]);
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() refuses outside the writable roots, in a read root, and into a missing folder",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const cases: [string, RegExp][] = [
      ["../outside/canary.txt", /leaves the allowed folders/],
      [join(tree.data, "hello.txt"), /leaves the allowed folders/],
      ["sub/new.txt", /the folder "sub" does not exist; this server does not create folders/],
      [".env", /the policy denies this path/],
      [".", /it is a folder/],
    ];
    for (const [path, reason] of cases) {
      const err = await writeAtomic(ws, path, "x", { maxBytes: 1024 }).then(() => undefined, (e) => e);
      assert.ok(err instanceof PolicyError, path);
      assert.match(err.message, reason, path);
      assertNoLeak(tree, err.message);
    }
    await assert.rejects(Deno.stat(join(tree.out, "sub")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(tree.data, "hello.txt")), "hello\n");
    assert.equal(await Deno.readTextFile(join(tree.outside, "canary.txt")), tree.canary);
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() refuses content over max_bytes and leaves the file as it was",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    await assert.rejects(writeAtomic(ws, "existing.txt", "x".repeat(11), { maxBytes: 10 }), LimitError);
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "old content\n");
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() refuses a symlink that leaves the root and a dangling one",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await symlink(join(tree.outside, "canary.txt"), join(tree.out, "escape.txt"));
    await symlink(join(tree.outside, "created-by-link.txt"), join(tree.out, "dangling.txt"));
    const ws = await workspaceOf(tree.config);
    await assert.rejects(writeAtomic(ws, "escape.txt", "pwned", { maxBytes: 1024 }), /symbolic link/);
    // Outside, dangling or not: the same words, which do not tell whether the target exists.
    await assert.rejects(
      writeAtomic(ws, "dangling.txt", "pwned", { maxBytes: 1024 }),
      /leads outside the allowed folders/,
    );
    await symlink("created-inside.txt", join(tree.out, "dangling_in.txt"));
    await assert.rejects(writeAtomic(ws, "dangling_in.txt", "pwned", { maxBytes: 1024 }), /dangling symbolic link/);
    await assert.rejects(Deno.stat(join(tree.out, "created-inside.txt")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(tree.outside, "canary.txt")), tree.canary);
    await assert.rejects(Deno.stat(join(tree.outside, "created-by-link.txt")), Deno.errors.NotFound);
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() through a hard link inside the root leaves the file outside unchanged",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await hardlink(join(tree.outside, "canary.txt"), join(tree.out, "hard.txt"));
    const ws = await workspaceOf(tree.config);
    await writeAtomic(ws, "hard.txt", "replaced", { maxBytes: 1024 });
    assert.equal(await Deno.readTextFile(join(tree.out, "hard.txt")), "replaced");
    assert.equal(await Deno.readTextFile(join(tree.outside, "canary.txt")), tree.canary);
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() with an aborted signal changes nothing and leaves no temp file",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    const signal = AbortSignal.abort();
    await assert.rejects(
      writeAtomic(ws, "existing.txt", "new", { maxBytes: 1024, signal }),
      (e: Error) => e.name === "AbortError",
    );
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "old content\n");
    assert.deepEqual(await names(tree.out), ["existing.txt"]);
    await tree.remove();
  },
});

Deno.test({
  name: "planWrite() names the normalised absolute target, following links inside the root, without writing",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.mkdir(join(tree.out, "docs"));
    await symlink(join(tree.out, "docs"), join(tree.out, "docs-link"));
    const ws = await workspaceOf(tree.config);
    assert.equal((await planWrite(ws, "./docs/../docs//a.md")).target, `${tree.out}/docs/a.md`);
    assert.equal((await planWrite(ws, "docs-link/b.md")).target, `${tree.out}/docs/b.md`);
    assert.equal((await planWrite(ws, "existing.txt")).exists, true);
    assert.deepEqual(await names(join(tree.out, "docs")), []);
    await tree.remove();
  },
});

Deno.test({
  name:
    "planWrite() words its refusals as a write: a file where a folder should be is not a folder, a denied folder is denied",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    await Deno.mkdir(join(tree.out, "secrets"));
    await Deno.writeTextFile(join(tree.out, "secrets", "token.txt"), "kept");
    const ws = await workspaceOf({ ...tree.config, deny: ["**/secret*"] });
    const cases: [string, RegExp][] = [
      [
        "existing.txt/b",
        /^Cannot write "existing\.txt\/b": "existing\.txt" is not a folder: a name on that path is a file$/,
      ],
      ["existing.txt/b/c", /^Cannot write "existing\.txt\/b\/c": "existing\.txt\/b" is not a folder: a name on that/],
      // Quoted as every refusal quotes a caller's path: whole up to 64 characters, then cut (a long temp folder).
      ...["new.txt", "token.txt"].map((name): [string, RegExp] => {
        const path = join(tree.out, "secrets", name);
        return [path, new RegExp(`^Cannot write ${RegExp.escape(quote(path))}: the policy denies this path$`)];
      }),
    ];
    for (const [path, reason] of cases) {
      await assert.rejects(
        planWrite(ws, path),
        (err: unknown) => err instanceof PolicyError && reason.test(err.message),
      );
      await assert.rejects(
        writeAtomic(ws, path, "x", { maxBytes: 1024 }),
        (err: unknown) => err instanceof PolicyError && reason.test(err.message),
      );
    }
    assert.equal(await Deno.readTextFile(join(tree.out, "secrets", "token.txt")), "kept");
    assert.equal(await Deno.readTextFile(join(tree.out, "existing.txt")), "old content\n");
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() refuses a path ending in / or /., which names a folder, and leaves the file of that name alone",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    await writeAtomic(ws, "a.txt", "kept", { maxBytes: 1024 });
    for (const path of ["a.txt/", "a.txt/.", "new.txt/"]) {
      await assert.rejects(writeAtomic(ws, path, "spoof", { maxBytes: 1024 }), (err: unknown) => {
        assert.ok(err instanceof PolicyError);
        assert.equal(err.code, "invalid-input");
        assert.equal(
          err.message,
          `Cannot write ${quote(path)}: a path ending in "/" names a folder; name the file without it`,
        );
        return true;
      });
    }
    assert.equal(await Deno.readTextFile(join(tree.out, "a.txt")), "kept");
    assert.ok(!(await names(tree.out)).includes("new.txt"));
    await tree.remove();
  },
});

Deno.test({
  name:
    "writeAtomic() refuses content holding a NUL character, which read_file would refuse as binary, and writes nothing",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    await assert.rejects(writeAtomic(ws, "nul.txt", "ab\0c", { maxBytes: 1024 }), (err: unknown) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.code, "invalid-input");
      assert.equal(
        err.message,
        'Cannot write "nul.txt": the content holds a NUL character (at character 2); this server serves text only, ' +
          "and read_file refuses a file with one as binary; nothing was written",
      );
      return true;
    });
    assert.ok(!(await names(tree.out)).includes("nul.txt"));
    // Every other control character is text, written and read back as it is.
    await writeAtomic(ws, "ctl.txt", "a\u0001\tb\u001f", { maxBytes: 1024 });
    assert.equal(await Deno.readTextFile(join(tree.out, "ctl.txt")), "a\u0001\tb\u001f");
    await tree.remove();
  },
});

Deno.test({
  name: "writeAtomic() refuses content holding half of a surrogate pair, which UTF-8 cannot store, and writes nothing",
  permissions: perms,
  async fn() {
    const tree = await makeTree();
    const ws = await workspaceOf(tree.config);
    await assert.rejects(writeAtomic(ws, "sur.txt", "A\ud800B", { maxBytes: 1024 }), (err: unknown) => {
      assert.ok(err instanceof PolicyError);
      assert.equal(err.code, "invalid-input");
      assert.equal(
        err.message,
        'Cannot write "sur.txt": the content holds half of a UTF-16 surrogate pair (at character 1), which UTF-8 ' +
          "cannot store; nothing was written",
      );
      return true;
    });
    assert.ok(!(await names(tree.out)).includes("sur.txt"));
    // A whole pair is fine.
    await writeAtomic(ws, "pair.txt", "A\ud83d\ude00B", { maxBytes: 1024 });
    assert.equal(await Deno.readTextFile(join(tree.out, "pair.txt")), "A😀B");
    await tree.remove();
  },
});
