// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=PATH,HOME,{child-env}
// A second, independent client: the MCP Inspector CLI 0.15.0 drives the git
// server over stdio. npx fetches the Inspector on first use (cached
// afterwards), so the deadline is generous. The server command line carries
// exactly the printed permission flags.
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
  try {
    return { code: out.code, json: JSON.parse(stdout), stderr };
  } catch {
    throw new Error(
      `The Inspector did not print JSON (exit ${out.code}): ${stdout.slice(0, 500)} ${stderr.slice(0, 1500)}`,
    );
  }
}

function texts(result: Record<string, unknown>): string[] {
  return (result.content as { text: string }[]).map((block) => block.text);
}

Deno.test({
  name: "the MCP Inspector CLI lists the git tools, calls git_log, and gets isError for a revision that is an option",
  permissions: perms,
  async fn() {
    const tree = await makeE2eTree();
    try {
      const flags = await printedPermissions({ script: SCRIPT, config: tree.config, cwd: REPO });
      const server = [Deno.execPath(), "run", "--no-prompt", ...flags, SCRIPT, "-config", tree.config];
      const cli = ["@modelcontextprotocol/inspector@0.15.0", "--cli", ...server];

      const list = await inspector([...cli, "--method", "tools/list"]);
      assert.equal(list.code, 0, list.stderr);
      const tools = list.json.tools as { name: string; annotations: Record<string, boolean> }[];
      assert.equal(tools.length, 7);
      assert.equal(tools.find((t) => t.name === "git_commit")?.annotations.readOnlyHint, false);

      const call = ["--method", "tools/call", "--tool-name"];
      const log = await inspector([...cli, ...call, "git_log", "--tool-arg", "repo=app", "--tool-arg", "max_count=1"]);
      assert.equal(log.code, 0, log.stderr);
      assert.match(texts(log.json)[0], /greet\(\): end with an exclamation mark/);

      const refused = await inspector([...cli, ...call, "git_show", "--tool-arg", "repo=app", "--tool-arg", "rev=-p"]);
      assert.equal(refused.json.isError, true);
      assert.match(texts(refused.json)[0], /may not start with "-"/);
    } finally {
      await tree.end();
    }
  },
});
