// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { probe } from "@forge/toolkit/testing";
import type { ClientRoots } from "../domain/client_roots.ts";
import { Manager } from "../domain/manager.ts";
import { session, textOf } from "./_session.ts";

const perms: Deno.PermissionOptions = { read: "inherit", write: "inherit" };

Deno.test({
  name: "write_file probe returns write:<absolute path> and does not write",
  permissions: perms,
  async fn() {
    const s = await session();
    // The SDK client checks results against the output schemas it saw in tools/list.
    await s.client.listTools();
    const result = await probe(s.client, "write_file", { path: "./notes.md", content: "x" });
    assert.deepEqual(result.patterns, [`write:${s.out}/notes.md`]);
    await assert.rejects(Deno.stat(join(s.out, "notes.md")), Deno.errors.NotFound);
    const refused = await probe(s.client, "write_file", { path: "../outside/canary.txt", content: "x" });
    assert.equal(refused.isError, true, "a write the jail refuses has no pattern");
    await s.end();
  },
});

Deno.test({
  name:
    "write_file probe has no pattern for a write that would be refused: content over max_bytes, a file or its folder read-only (red team)",
  permissions: perms,
  async fn() {
    const s = await session();
    await s.client.listTools();
    await Deno.mkdir(join(s.out, "locked"));
    await Deno.writeTextFile(join(s.out, "locked", "in.txt"), "in\n");
    await Deno.writeTextFile(join(s.out, "ro.txt"), "ro\n");
    await Deno.chmod(join(s.out, "ro.txt"), 0o444);
    await Deno.chmod(join(s.out, "locked"), 0o555);
    try {
      const cases: [Record<string, string>, RegExp][] = [
        [{ path: "big.txt", content: "x".repeat(65) }, /^Cannot write "big\.txt": it exceeds the limit of 64 bytes/],
        [
          { path: "locked/new.txt", content: "x" },
          /^Cannot write "locked\/new\.txt": its folder is read-only \(mode 555\)$/,
        ],
        [
          { path: "locked/in.txt", content: "x" },
          /^Cannot write "locked\/in\.txt": its folder is read-only \(mode 555\)$/,
        ],
        [{ path: "ro.txt", content: "x" }, /^Cannot write "ro\.txt": the file is read-only \(mode 444\)$/],
      ];
      for (const [args, reason] of cases) {
        const probed = await s.client.callTool({
          name: "write_file",
          arguments: args,
          _meta: { "forge.permission_patterns": true },
        });
        assert.equal(probed.isError, true, `${args.path}: ${JSON.stringify(probed._meta)}`);
        assert.match(textOf(probed), reason);
        // The call itself is refused in the same words.
        assert.match(textOf(await s.client.callTool({ name: "write_file", arguments: args })), reason);
      }
      assert.deepEqual((await probe(s.client, "write_file", { path: "fits.txt", content: "x".repeat(64) })).patterns, [
        `write:${s.out}/fits.txt`,
      ]);
      await assert.rejects(Deno.stat(join(s.out, "big.txt")), Deno.errors.NotFound);
      await assert.rejects(Deno.stat(join(s.out, "fits.txt")), Deno.errors.NotFound);
      assert.equal(await Deno.readTextFile(join(s.out, "locked", "in.txt")), "in\n");
      assert.equal(await Deno.readTextFile(join(s.out, "ro.txt")), "ro\n");
    } finally {
      await Deno.chmod(join(s.out, "locked"), 0o755);
      await Deno.chmod(join(s.out, "ro.txt"), 0o644);
    }
    await s.end();
  },
});

Deno.test({
  name: "write_file creates and replaces a file, and accepts empty content",
  permissions: perms,
  async fn() {
    const s = await session();
    const created = await s.client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "one" } });
    assert.deepEqual(created.structuredContent, { root: s.out, path: "a.txt", bytes: 3, created: true });
    const replaced = await s.client.callTool({ name: "write_file", arguments: { path: "existing.txt", content: "" } });
    assert.deepEqual(replaced.structuredContent, { root: s.out, path: "existing.txt", bytes: 0, created: false });
    assert.equal(await Deno.readTextFile(join(s.out, "a.txt")), "one");
    assert.equal(await Deno.readTextFile(join(s.out, "existing.txt")), "");
    await s.end();
  },
});

Deno.test({
  name: "write_file answers isError for missing content, content over max_bytes, a read root and a missing folder",
  permissions: perms,
  async fn() {
    const s = await session();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: "a.txt" }, /Invalid argument "content": is missing \(required\)/],
      [{ path: "a.txt", content: 5 }, /Invalid argument "content"/],
      [{ path: "a.txt", content: "x".repeat(65) }, /exceeds the limit of 64 bytes/],
      [{ path: join(s.data, "hello.txt"), content: "x" }, /leaves the allowed folders/],
      [{ path: "new/a.txt", content: "x" }, /does not create folders/],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "write_file", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), reason);
    }
    await assert.rejects(Deno.stat(join(s.out, "a.txt")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(s.data, "hello.txt")), "hello\n");
    await s.end();
  },
});

Deno.test({
  name: "write_file never replaces unasked: a file that appears after the overwrite check is refused and kept",
  permissions: perms,
  async fn() {
    let out = "";
    // Another process creates the file between the check that found no file to confirm
    // and the write itself.
    class Racer extends Manager {
      override async overwriteQuestion(
        path: string,
        content: string,
        roots?: ClientRoots,
      ): Promise<string | undefined> {
        const question = await super.overwriteQuestion(path, content, roots);
        await Deno.writeTextFile(join(out, path), "written by another process\n");
        return question;
      }
    }
    const s = await session((config) => new Racer(config, undefined));
    out = s.out;
    const result = await s.client.callTool({ name: "write_file", arguments: { path: "late.txt", content: "mine" } });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /Cannot write "late\.txt": the file already exists/);
    assert.equal(await Deno.readTextFile(join(s.out, "late.txt")), "written by another process\n");
    const strays = [];
    for await (const e of Deno.readDir(s.out)) if (e.name.startsWith(".forge-write-")) strays.push(e.name);
    assert.deepEqual(strays, [], "no temporary file is left");
    await s.end();
  },
});

Deno.test({
  name:
    "write_file writes only the file its pattern named: a reload between the pattern and the write that reorders the roots moves nothing",
  permissions: perms,
  async fn() {
    // The call's first config read works out its pattern; every later read sees the reload, which puts out2 first.
    let reads = 0;
    const s = await session((config) =>
      new Manager(async () => {
        const c = await config();
        const out2 = join(c.writable_roots[0], "..", "out2");
        return ++reads === 1 ? c : { ...c, writable_roots: [out2, ...c.writable_roots] };
      }, undefined)
    );
    const out2 = join(s.out, "..", "out2");
    await Deno.mkdir(out2);
    await s.client.listTools();
    reads = 0;
    const result = await s.client.callTool({ name: "write_file", arguments: { path: "new.md", content: "x" } });
    // Approved for out/new.md: out2/new.md, which only the next version names, is never written.
    await assert.rejects(Deno.stat(join(out2, "new.md")), Deno.errors.NotFound);
    assert.equal(result.isError, true);
    assert.match(textOf(result), /now names another file than the one this call was approved for/);
    assert.ok(reads > 1, "the write read the reloaded config");
    await s.end();
  },
});
