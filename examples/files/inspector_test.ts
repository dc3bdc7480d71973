// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=PATH,HOME,{child-env}
// A second, independent client: the MCP Inspector CLI (0.15.0, legacy era,
// and 2.12.0 pinned to the 2026-07-28 era) drives the files server over
// stdio. npx fetches the Inspector on first use (cached afterwards), so the
// deadline is generous. The server command line carries its own permission
// flags, exactly the printed ones: the Inspector's Node child_process does
// not hand permissions down, and the server would refuse any excess anyway.
import assert from "node:assert/strict";
import { childEnv, printedPermissions } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = { run: true, read: "inherit", write: "inherit", env: "inherit" };
const FIRST_INSTALL_MS = 240_000;

async function inspector(args: string[]): Promise<{ code: number; json: Record<string, unknown>; stderr: string }> {
  const out = await new Deno.Command("npx", {
    args: ["-y", ...args],
    cwd: REPO,
    clearEnv: true,
    env: childEnv({ PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" }),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(FIRST_INSTALL_MS),
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(stdout);
  } catch {
    throw new Error(
      `The Inspector did not print JSON (exit ${out.code}): ${stdout.slice(0, 500)} ${stderr.slice(0, 1500)}`,
    );
  }
  return { code: out.code, json, stderr };
}

function texts(result: Record<string, unknown>): string[] {
  return (result.content as { text: string }[]).map((block) => block.text);
}

Deno.test({
  name: "the MCP Inspector CLI 0.15.0 (legacy era) lists the tools and calls read_file, isError included",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
    const server = [Deno.execPath(), "run", "--no-prompt", ...flags, SCRIPT, "-config", tree.config];
    const cli = ["@modelcontextprotocol/inspector@0.15.0", "--cli", ...server];

    const list = await inspector([...cli, "--method", "tools/list"]);
    assert.equal(list.code, 0, list.stderr);
    const tools = list.json.tools as { name: string; annotations: Record<string, boolean> }[];
    assert.deepEqual(tools.map((t) => t.name), ["read_file", "list_dir", "stat", "search_files", "write_file"]);
    assert.equal(tools.find((t) => t.name === "write_file")?.annotations.readOnlyHint, false);

    const read = await inspector([
      ...cli,
      "--method",
      "tools/call",
      "--tool-name",
      "read_file",
      "--tool-arg",
      "path=hello.txt",
    ]);
    assert.deepEqual([read.code, texts(read.json), read.json.isError], [0, ["hello\n"], undefined]);

    const refused = await inspector([
      ...cli,
      "--method",
      "tools/call",
      "--tool-name",
      "read_file",
      "--tool-arg",
      "path=escape.txt",
    ]);
    assert.equal(refused.json.isError, true);
    assert.match(texts(refused.json)[0], /symbolic link that leads outside/);
    assert.ok(!JSON.stringify(refused.json).includes(tree.canary));
    await tree.remove();
  },
});

Deno.test({
  name:
    "the MCP Inspector CLI 2.12.0 in the modern era (2026-07-28) lists the tools and calls read_file; isError exits 5",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
    const server = ["--", Deno.execPath(), "run", "--no-prompt", ...flags, SCRIPT, "-config", tree.config];
    const cli = ["@modelcontextprotocol/inspector@2.12.0", "--cli", "--protocol-era", "modern"];

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
