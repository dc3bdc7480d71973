// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end with a descriptor anchor: the server as a real subprocess under
// exactly the flags it prints, which grant the anchor link itself; a wrong
// anchor, or none under require_fd_anchor, refuses the start in one line, and a
// reload cannot drop it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { printedPermissions } from "@forge/toolkit/permissions";
import { spawnServer } from "@forge/toolkit/testing";
import { textOf } from "../served.ts";
import { denoRun, makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "ln"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};

async function ln(target: string, path: string): Promise<void> {
  assert.ok((await new Deno.Command("ln", { args: ["-s", target, path] }).output()).success);
}

Deno.test({
  name:
    "with fd_anchor every tool works over real stdio under the printed flags, which grant the link and no /proc; a reload cannot drop it",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    await Deno.mkdir(join(tree.base, "anchor"), { mode: 0o700 });
    const anchor = join(tree.base, "anchor", "fd");
    await ln("/proc/self/fd", anchor);
    await tree.writeConfig({
      roots: [tree.data],
      writable_roots: [tree.out],
      fd_anchor: anchor,
      require_fd_anchor: true,
    });
    const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
    assert.ok(flags.some((f) => f.startsWith("--allow-read=") && f.split(/[=,]/).includes(anchor)), flags.join(" "));
    assert.ok(flags.some((f) => f.startsWith("--allow-write=") && f.split(/[=,]/).includes(anchor)), flags.join(" "));
    assert.ok(!flags.some((f) => f.includes("/proc")), flags.join(" "));
    const server = await spawnServer({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO });
    const call = (name: string, args: Record<string, unknown>) => server.client.callTool({ name, arguments: args });
    try {
      assert.equal(textOf(await call("read_file", { path: "notes/todo.md" })), "- ship it\n");
      const listed = (await call("list_dir", { path: "notes" })).structuredContent as { entries: { name: string }[] };
      assert.deepEqual(listed.entries.map((e) => e.name), ["todo.md"]);
      assert.equal(((await call("stat", { path: "hello.txt" })).structuredContent as { size: number }).size, 6);
      const found = (await call("search_files", { path: ".", pattern: "*.md" })).structuredContent as {
        matches: { path: string }[];
      };
      assert.deepEqual(found.matches.map((m) => m.path), ["notes/todo.md"]);
      const written = await call("write_file", { path: "new.txt", content: "through the anchor" });
      assert.notEqual(written.isError, true, textOf(written));
      assert.equal(await Deno.readTextFile(join(tree.out, "new.txt")), "through the anchor");
      const escape = await call("read_file", { path: "escape.txt" });
      assert.equal(escape.isError, true);
      assert.ok(!textOf(escape).includes(tree.canary));
      const through = await call("read_file", { path: join(anchor, "0") });
      assert.equal(through.isError, true, "the anchor itself is no path a caller can use");
      // The anchor is fixed at start: a version that drops it (and the writable root, to show whether it was used)
      // is not used, and stderr says a restart is needed.
      await tree.writeConfig({ roots: [tree.data], require_fd_anchor: true });
      const kept = await call("write_file", { path: "after-reload.txt", content: "still anchored" });
      assert.notEqual(kept.isError, true, textOf(kept));
      await server.waitForStderr(`it changes fd_anchor from "${anchor}" to none, which needs a restart`);
    } finally {
      const { code } = await server.close();
      assert.equal(code, 0);
    }
    assert.ok(!server.stderr().includes("not race-free"), server.stderr());
    assert.deepEqual([...Deno.readDirSync(tree.out)].map((e) => e.name).sort(), [
      "after-reload.txt",
      "existing.txt",
      "new.txt",
    ]);
    await tree.remove();
  },
});

Deno.test({
  name: "a wrong fd_anchor, or none under require_fd_anchor, refuses the start with one line; none says so once",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    await Deno.mkdir(join(tree.base, "anchor"), { mode: 0o700 });
    const wrong = join(tree.base, "anchor", "self");
    await ln("/proc/self", wrong);
    const start = async (config: Record<string, unknown>) => {
      await tree.writeConfig({ roots: [tree.data], ...config });
      const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
      return await denoRun([...flags, SCRIPT, "-config", tree.config]);
    };
    const refusedWrong = await start({ fd_anchor: wrong });
    assert.equal(refusedWrong.code, 1, refusedWrong.stderr);
    assert.match(refusedWrong.stderr, /^files: Cannot use the descriptor anchor ".*": it points at "\/proc\/self"/);
    assert.equal(refusedWrong.stderr.trim().split("\n").length, 1, refusedWrong.stderr);
    const refusedMissing = await start({ require_fd_anchor: true });
    assert.equal(refusedMissing.code, 1, refusedMissing.stderr);
    assert.match(
      refusedMissing.stderr,
      /^files: Cannot start: require_fd_anchor is set and no fd_anchor is configured/,
    );
    // Without an anchor it serves (stdin is closed at once, so it stops) and says once that access is not race-free.
    const warned = await start({});
    assert.equal(warned.code, 0, warned.stderr);
    assert.equal(warned.stderr.split("file access is not race-free").length - 1, 1, warned.stderr);
    await tree.remove();
  },
});
