// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-env={child-env}
// git_log and git_grep are long-running tools: over real stdio, under the
// printed flags, a 2026-07-28 client that declares the tasks extension gets a
// task and polls for the result; a client without it gets the result at once.
import assert from "node:assert/strict";
import { printedPermissions } from "@forge/toolkit/permissions";
import { type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

const perms: Deno.PermissionOptions = {
  run: [Deno.execPath(), "/usr/bin/git"],
  read: "inherit",
  write: "inherit",
  env: "inherit",
};
const TASKS = "io.modelcontextprotocol/tasks";
type Json = Record<string, unknown>;

let nextId = 0;

async function request(server: RawServer, method: string, params: Json, tasks: boolean): Promise<Json> {
  const id = ++nextId;
  const _meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [TASKS]: {} } } : {},
  };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta } }));
  for (;;) {
    const msg = await server.next(30_000);
    if (msg.id === id) return msg.result as Json;
  }
}

/**
 * Calls a tool as a task and polls tasks/get until it ends: each poll is sent
 * once the last one is answered, with no timer between them (the server says
 * nothing else when a task ends). A minute is a backstop against a hang.
 */
async function asTask(server: RawServer, name: string, args: Json): Promise<Json> {
  const created = await request(server, "tools/call", { name, arguments: args }, true);
  assert.equal(created.resultType, "task", JSON.stringify(created));
  const backstop = Date.now() + 60_000;
  while (Date.now() < backstop) {
    const got = await request(server, "tasks/get", { taskId: created.taskId }, true);
    if (got.status !== "working") return got;
  }
  throw new Error(`${name} did not finish within a minute`);
}

const textOf = (result: unknown) => ((result as Json).content as { text: string }[])[0].text;

Deno.test({
  name: "git_log and git_grep run as tasks for a client with the tasks extension and as plain calls without it",
  permissions: perms,
  async fn() {
    const dirs = await makeE2eTree();
    const flags = await printedPermissions({ script: SCRIPT, config: dirs.config, cwd: REPO });
    const server = await spawnRaw({ args: [...flags, SCRIPT, "-config", dirs.config], cwd: REPO });
    try {
      const log = await asTask(server, "git_log", { repo: "app", max_count: 2 });
      assert.equal(log.status, "completed");
      assert.match(textOf(log.result), /greet\(\): end with an exclamation mark/);
      assert.match(textOf(log.result), /Add greet\(\)/);
      assert.doesNotMatch(textOf(log.result), /Add a README/);
      const grep = await asTask(server, "git_grep", { repo: "app", pattern: "Hello", ref: "HEAD" });
      assert.match(textOf(grep.result), /^HEAD:src\/greet\.ts:2:/m);
      // A refusal is the tool's own isError result, inside a completed task.
      const refused = await asTask(server, "git_log", { repo: "app", ref: "--output=/tmp/x" });
      assert.equal(refused.status, "completed");
      assert.equal((refused.result as Json).isError, true);
      assert.match(textOf(refused.result), /may not start with "-"/);
      const plain = await request(server, "tools/call", { name: "git_log", arguments: { repo: "app" } }, false);
      assert.equal(plain.resultType, "complete");
      assert.match(textOf(plain), /Add a README/);
      const status = await request(server, "tools/call", { name: "git_status", arguments: { repo: "app" } }, true);
      assert.equal(status.resultType, "complete", "a tool not marked long-running never becomes a task");
    } finally {
      assert.equal((await server.status()).code, 0);
      await dirs.end();
    }
  },
});
