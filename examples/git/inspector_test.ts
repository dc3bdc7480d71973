// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env=PATH,HOME,{child-env}
// The MCP Inspector CLI 0.15.0 drives the git server over stdio (../inspector.ts).
import assert from "node:assert/strict";
import { inspector, INSPECTOR_PERMISSIONS, serverCommand, texts } from "../inspector.ts";
import { makeE2eTree, SCRIPT } from "./_e2e.ts";

Deno.test({
  name: "the MCP Inspector CLI lists the git tools, calls git_log, and gets isError for a revision that is an option",
  permissions: INSPECTOR_PERMISSIONS,
  async fn() {
    const tree = await makeE2eTree();
    try {
      const server = await serverCommand(SCRIPT, tree.config);
      const cli = ["@modelcontextprotocol/inspector@0.15.0", "--cli", ...server.env, ...server.command];

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
