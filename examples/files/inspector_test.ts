// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=PATH,HOME,{child-env}
// The MCP Inspector CLI (0.15.0, legacy era, and 2.12.0 pinned to the
// 2026-07-28 era) drives the files server over stdio (../inspector.ts).
import assert from "node:assert/strict";
import { inspector, INSPECTOR_PERMISSIONS, serverCommand, texts } from "../inspector.ts";
import { makeE2eTree, SCRIPT } from "./_e2e.ts";

Deno.test({
  name: "the MCP Inspector CLI 0.15.0 (legacy era) lists the tools and calls read_file, isError included",
  permissions: INSPECTOR_PERMISSIONS,
  async fn() {
    const tree = await makeE2eTree();
    const server = await serverCommand(SCRIPT, tree.config);
    const cli = ["@modelcontextprotocol/inspector@0.15.0", "--cli", ...server.env, ...server.command];

    const list = await inspector([...cli, "--method", "tools/list"]);
    assert.equal(list.code, 0, list.stderr);
    const tools = list.json.tools as { name: string; annotations: Record<string, boolean> }[];
    assert.deepEqual(tools.map((t) => t.name), ["read_file", "list_dir", "stat", "search_files", "write_file"]);
    assert.equal(tools.find((t) => t.name === "write_file")?.annotations.readOnlyHint, false);

    const tool = ["--method", "tools/call", "--tool-name", "read_file", "--tool-arg"];
    const read = await inspector([...cli, ...tool, "path=hello.txt"]);
    assert.deepEqual([read.code, texts(read.json), read.json.isError], [0, ["hello\n"], undefined]);

    const refused = await inspector([...cli, ...tool, "path=escape.txt"]);
    assert.equal(refused.json.isError, true);
    assert.match(texts(refused.json)[0], /symbolic link that leads outside/);
    assert.ok(!JSON.stringify(refused.json).includes(tree.canary));
    await tree.remove();
  },
});

Deno.test({
  name:
    "the MCP Inspector CLI 2.12.0 in the modern era (2026-07-28) lists the tools and calls read_file; isError exits 5",
  permissions: INSPECTOR_PERMISSIONS,
  async fn() {
    const tree = await makeE2eTree();
    const { env, command } = await serverCommand(SCRIPT, tree.config);
    const server = ["--", ...command];
    const cli = ["@modelcontextprotocol/inspector@2.12.0", "--cli", "--protocol-era", "modern", ...env];

    const list = await inspector([...cli, "--method", "tools/list", ...server]);
    assert.equal(list.code, 0, list.stderr);
    const names = (list.json.tools as { name: string }[]).map((t) => t.name);
    assert.deepEqual(names, ["read_file", "list_dir", "stat", "search_files", "write_file"]);
    assert.doesNotMatch(list.stderr, /warning/i, "no schema portability warnings");

    const tool = ["--method", "tools/call", "--tool-name", "read_file", "--tool-arg"];
    const read = await inspector([...cli, ...tool, "path=notes/todo.md", ...server]);
    assert.equal(read.code, 0, read.stderr);
    assert.deepEqual(texts(read.json), ["- ship it\n"]);
    const meta = read.json._meta as Record<string, { name: string }>;
    assert.equal(meta["io.modelcontextprotocol/serverInfo"].name, "files", "answered in the 2026-07-28 era");

    const refused = await inspector([...cli, ...tool, "path=../outside/canary.txt", ...server]);
    assert.equal(refused.code, 5, "exit code 5 is the Inspector's tool-error code");
    assert.equal(refused.json.isError, true);
    assert.match(texts(refused.json)[0], /leaves the allowed folders/);
    assert.ok(!JSON.stringify(refused.json).includes(tree.canary));
    await tree.remove();
  },
});
