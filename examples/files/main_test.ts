// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// End to end: the server as a real subprocess, started with exactly the flags
// it prints, driven by the official SDK client over its real stdio.
import assert from "node:assert/strict";
import { join } from "node:path";
import { probe } from "@forge/toolkit/testing";
import { verifyAuditTrail } from "@forge/toolkit/middleware";
import {
  assertHealthNeedsNoPermission,
  assertRefusesSharedConfig,
  printedTrees,
  serveUnderFlags,
  serveUnderPrintedFlags,
  textOf,
} from "../served.ts";
import { denoRun, makeE2eTree, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "ln"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};

/**
 * The tree with `audit_file: "../audit.jsonl"` and the flags printed for it, made by the first test that needs it:
 * "--print-permissions …" only reads its config, and the one test that writes in it (the audit trail) runs last, so
 * one printing serves both. Removed at unload.
 */
const auditedTree = printedTrees(SCRIPT, () => makeE2eTree({ audit_file: "../audit.jsonl" }));

Deno.test({
  name: "--health prints ok and needs no permission at all",
  permissions: perms,
  async fn() {
    await assertHealthNeedsNoPermission(SCRIPT);
  },
});

Deno.test({
  name: "--print-permissions needs only the config file and prints the roots, that file (not its folder), the env",
  permissions: perms,
  async fn() {
    const { tree, flags } = await auditedTree();
    assert.deepEqual(flags, [
      `--allow-read=${[join(tree.base, "audit.jsonl"), tree.config, tree.data, tree.more, tree.out].sort().join(",")}`,
      `--allow-write=${join(tree.base, "audit.jsonl")},${tree.out}`,
      "--allow-env=FORGE_TENANT_CONFIG",
    ]);
  },
});

Deno.test({
  name: "--print-permissions shows a root that came from the environment by its value, so the flags run as pasted",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree({ roots: ["${FILES_DATA}"] });
    const out = await denoRun(
      [`--allow-read=${tree.config}`, "--allow-env=FILES_DATA", SCRIPT, "-config", tree.config, "--print-permissions"],
      { FILES_DATA: tree.data },
    );
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.split(" ")[0].split("=")[1].split(",").includes(tree.data), out.stdout);
    assert.ok(!out.stdout.includes("${"), out.stdout);
    await tree.remove();
  },
});

Deno.test({
  name: "the server refuses to serve with -A (exit 2) and refuses a config others can write (exit 1)",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const all = await denoRun(["-A", SCRIPT, "-config", tree.config]);
    assert.equal(all.code, 2);
    assert.match(all.stderr, /^files: refusing to serve: the process holds more permissions than its policy needs/);
    await assertRefusesSharedConfig(SCRIPT, tree.config);
    await tree.remove();
  },
});

Deno.test({
  name: "every tool works over real stdio under the printed flags, refusals are isError, and nothing leaks",
  permissions: perms,
  async fn(t) {
    const tree = await makeE2eTree();
    const { server, call, refused } = await serveUnderPrintedFlags(SCRIPT, tree.config);

    await t.step("tools/list", async () => {
      const { tools } = await server.client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ["read_file", "list_dir", "stat", "search_files", "write_file"]);
    });
    await t.step("read_file: text, a marked cut, and refusals", async () => {
      assert.equal(textOf(await call("read_file", { path: "hello.txt" })), "hello\n");
      assert.deepEqual((await call("read_file", { path: "big.txt" })).content, [
        { type: "text", text: "x".repeat(64) },
        { type: "text", text: "[truncated: showed 64 of 100 bytes]" },
      ]);
      await refused("read_file", { path: "escape.txt" }, /symbolic link that leads outside/);
      await refused("read_file", { path: "../outside/canary.txt" }, /leaves the allowed folders/);
      await refused("read_file", { path: "linked-dir/canary.txt" }, /symbolic link that leads outside/);
      await refused("read_file", { path: ".env" }, /the policy denies this path/);
      await refused("read_file", { path: "plan.secret" }, /the policy denies this path/);
      // A file in a denied folder is denied like the folder (a red team read one).
      await Deno.mkdir(join(tree.data, "vault.secret"));
      await Deno.writeTextFile(join(tree.data, "vault.secret", "key.txt"), tree.canary);
      await refused("read_file", { path: "vault.secret/key.txt" }, /the policy denies this path/);
      await refused("stat", { path: "vault.secret/key.txt" }, /the policy denies this path/);
      // U+017F (long s) upper-cases to S: NTFS takes plan.ſecret for plan.secret.
      await refused("read_file", { path: "plan.\u017fecret" }, /the policy denies this path/);
      await refused("read_file", { path: "blob.bin" }, /looks binary/);
      await refused("read_file", { path: "notes" }, /not a regular file/);
    });
    await t.step("list_dir and stat: root-relative, links shown unfollowed, denied entries hidden", async () => {
      const listing = (await call("list_dir", { path: "." })).structuredContent as { entries: { path: string }[] };
      assert.deepEqual(listing.entries.map((e) => e.path), [
        "big.txt",
        "blob.bin",
        "escape.txt",
        "hello.txt",
        "linked-dir",
        "notes",
      ]);
      await refused("list_dir", { path: "linked-dir" }, /symbolic link that leads outside/);
      // Refused before the disk is touched: deeper paths made every call's work grow with the cube of the depth.
      await refused("list_dir", { path: "a/".repeat(257) }, /lies more than 256 levels below its root folder/);
      const info = (await call("stat", { path: join(tree.more, "other.md") })).structuredContent;
      assert.deepEqual({ ...info as object, modified: undefined }, {
        root: tree.more,
        path: "other.md",
        type: "file",
        size: 5,
        modified: undefined,
      });
    });
    await t.step("search_files: bounded, never through a link", async () => {
      const found = (await call("search_files", { path: ".", pattern: "*" })).structuredContent as {
        matches: { path: string }[];
        truncated: boolean;
      };
      assert.deepEqual(found.matches.map((m) => m.path), [
        "big.txt",
        "blob.bin",
        "escape.txt",
        "hello.txt",
        "linked-dir",
        "notes",
        "notes/todo.md",
      ]);
      assert.equal(found.truncated, false);
      await refused("search_files", { path: ".", pattern: "a/b" }, /matches names, not paths/);
    });
    await t.step("write_file: probe first (nothing written), then write, then refusals", async () => {
      const { patterns } = await probe(server.client, "write_file", { path: "new.md", content: "probe-only" });
      assert.deepEqual(patterns, [`write:${tree.out}/new.md`]);
      await assert.rejects(Deno.stat(join(tree.out, "new.md")), Deno.errors.NotFound);
      const secret = `content-${crypto.randomUUID()}`;
      const wrote = await call("write_file", { path: "new.md", content: secret });
      assert.deepEqual(wrote.structuredContent, {
        root: tree.out,
        path: "new.md",
        bytes: secret.length,
        created: true,
      });
      assert.equal(await Deno.readTextFile(join(tree.out, "new.md")), secret);
      await refused("write_file", { path: join(tree.data, "hello.txt"), content: "x" }, /leaves the allowed folders/);
      await refused("write_file", { path: "../outside/canary.txt", content: "x" }, /leaves the allowed folders/);
      await refused("write_file", { path: "sub/new.md", content: "x" }, /does not create folders/);
      await refused("write_file", { path: "big.md", content: "x".repeat(65) }, /exceeds the limit of 64 bytes/);
      assert.equal(await Deno.readTextFile(join(tree.outside, "canary.txt")), tree.canary);
      // The audit trail on stderr: an intent and an outcome per write_file call, a record per probe, never the content.
      const audit = server.stderr().split("\n").filter((line) => line.startsWith("{")).map((l) => JSON.parse(l));
      const ok = audit.find((r) => r.event === "outcome" && r.outcome === "ok");
      assert.deepEqual(audit.find((r) => r.seq === ok?.intent)?.patterns, [`write:${tree.out}/new.md`]);
      assert.ok(audit.some((r) => r.outcome === "probe"));
      assert.ok(!server.stderr().includes(secret), "argument values never reach the audit trail");
    });

    const status = await server.close();
    assert.equal(status.code, 0);
    for (const line of server.lines) JSON.parse(line);
    const wire = server.lines.join("\n") + server.stderr();
    assert.ok(!wire.includes(tree.canary), "the canary never appears in any output");
    assert.ok(!wire.includes(tree.outside), "no host path outside the jail appears in any output");
    await tree.remove();
  },
});

Deno.test({
  name:
    "over stdio, a planted link whose target goes up after a link out (`up/../x`) says the same whether x exists outside",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    await Deno.mkdir(join(tree.outside, "sub"));
    // The system reads `up/../x` from up's target: outside/x. Walked lexically, the missing one was data/x, inside:
    // "no such file", while its twin whose target exists said "leads outside" (a red team's oracle).
    for (
      const [target, link] of [
        [join(tree.outside, "sub"), "up"],
        ["up/../canary.txt", "there"],
        ["up/../nothing.txt", "not_there"],
      ]
    ) {
      const made = await new Deno.Command("ln", { args: ["-s", target, join(tree.data, link)] }).output();
      assert.ok(made.success);
    }
    const { server } = await serveUnderPrintedFlags(SCRIPT, tree.config);
    for (const tool of ["read_file", "stat"]) {
      const said = async (path: string) => {
        const result = await server.client.callTool({ name: tool, arguments: { path } });
        assert.equal(result.isError, true, `${tool} ${path}`);
        return textOf(result).replace(path, "<link>");
      };
      const there = await said("there");
      assert.match(there, /leads outside the allowed folders/);
      assert.equal(await said("not_there"), there, tool);
      assert.equal(await said("not_there/x"), there, tool);
    }
    assert.equal((await server.close()).code, 0);
    await tree.remove();
  },
});

Deno.test({
  name: "live reload: removing a root from the config denies access on the very next call, without restart",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const { server } = await serveUnderPrintedFlags(SCRIPT, tree.config);
    const read = () => server.client.callTool({ name: "read_file", arguments: { path: join(tree.more, "other.md") } });
    assert.equal(textOf(await read()), "more\n");
    await tree.writeConfig({ roots: [tree.data], writable_roots: [tree.out], max_bytes: 64 });
    const denied = await read();
    assert.equal(denied.isError, true);
    assert.match(textOf(denied), /leaves the allowed folders/);
    await tree.writeConfig({ roots: [tree.data, tree.more], writable_roots: [], max_bytes: 64 });
    assert.equal(textOf(await read()), "more\n");
    const write = await server.client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "x" } });
    assert.match(textOf(write), /this server has no writable folder/);
    // read_file reserves what its reply may take under the config in use: at max_bytes 10 MiB, 60 MiB, so of
    // reads sent together no second joins one in flight (maxInFlightBytes, 64 MiB); each is answered.
    await tree.writeConfig({ roots: [tree.data, tree.more], max_bytes: 10 * 1024 * 1024 });
    assert.equal(textOf(await read()), "more\n", "the first read under the new config");
    const burst = await Promise.allSettled(Array.from({ length: 20 }, () => read()));
    const busy = burst.filter((r) => r.status === "rejected");
    for (const r of busy) assert.match(String(r.reason), /-32003.*bytes of requests and replies \(maxInFlightBytes\)/);
    for (const r of burst) if (r.status === "fulfilled") assert.equal(textOf(r.value), "more\n");
    assert.ok(busy.length > 0 && busy.length < 20, `${busy.length} of 20 refused as busy`);
    assert.equal((await server.close()).code, 0);
    await tree.remove();
  },
});

Deno.test({
  name: "live reload: a root beyond the start-up flags is refused with a restart hint (Deno caps what a reload adds)",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const { server } = await serveUnderPrintedFlags(SCRIPT, tree.config);
    await tree.writeConfig({ roots: [tree.data, tree.outside], max_bytes: 64 });
    const result = await server.client.callTool({
      name: "read_file",
      arguments: { path: join(tree.outside, "canary.txt") },
    });
    assert.equal(result.isError, true);
    assert.match(textOf(result), /outside what this process was started with; restart the server with the flags/);
    assert.equal(
      textOf(await server.client.callTool({ name: "read_file", arguments: { path: "hello.txt" } })),
      "hello\n",
    );
    await server.close();
    assert.ok(!server.lines.join("\n").includes(tree.canary));
    await tree.remove();
  },
});

Deno.test({
  name:
    "live reload: a config that drops or moves audit_file is not used, so the model can neither read nor write the live trail",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    // The trail inside the writable root: only the server's own-files guard keeps the model off it.
    const trail = join(tree.out, "audit.jsonl");
    const base = { roots: [tree.data], writable_roots: [tree.out], max_bytes: 64 };
    await tree.writeConfig({ ...base, audit_file: trail });
    const { server, ok, refused } = await serveUnderPrintedFlags(SCRIPT, tree.config);
    await ok("write_file", { path: "a.txt", content: "audited" });
    const before = await Deno.readTextFile(trail);
    for (const audit_file of [undefined, join(tree.out, "other.jsonl")]) {
      // A wider max_bytes shows whether the new version was used.
      await tree.writeConfig({ ...base, max_bytes: 4096, audit_file });
      await refused("read_file", { path: trail }, /^Cannot read ".*": the policy denies this path$/);
      await refused("write_file", { path: trail, content: '{"forged":true}\n' }, /the policy denies this path$/);
      assert.equal(
        await ok("read_file", { path: join(tree.data, "big.txt") }),
        `${"x".repeat(64)}\n[truncated: showed 64 of 100 bytes]`,
        "max_bytes stays 64",
      );
      await server.waitForStderr("which needs a restart");
    }
    assert.equal((await server.close()).code, 0);
    const after = await Deno.readTextFile(trail);
    assert.ok(after.startsWith(before) && !after.includes("forged"), "the trail only grew, by the server's records");
    assert.ok((await verifyAuditTrail(after)).ok);
    await tree.remove();
  },
});

Deno.test({
  name: "with audit_file in the config the audit trail is appended there, not to stderr",
  permissions: perms,
  async fn() {
    const { tree, flags } = await auditedTree();
    const { server } = await serveUnderFlags(SCRIPT, tree.config, flags);
    await server.client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "audited" } });
    await server.close();
    const lines = (await Deno.readTextFile(join(tree.base, "audit.jsonl"))).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.deepEqual(lines.map((r) => [r.event, r.tool, r.outcome, r.patterns]), [
      ["intent", "write_file", undefined, [`write:${tree.out}/a.txt`]],
      ["outcome", "write_file", "ok", undefined],
    ]);
    assert.ok(!server.stderr().includes('"tool":"write_file"'));
  },
});
