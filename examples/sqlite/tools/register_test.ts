// test-permissions: --allow-run --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client";
import { session, textOf, TMP } from "./_session.ts";
import { ConfigSchema, MAX_QUERY_TIMEOUT_MS } from "../domain/config.ts";
import { describeTableTool } from "./describe_table.ts";
import { executeTool } from "./execute.ts";
import { listTablesTool } from "./list_tables.ts";
import { runQueryTool } from "./run_query.ts";

const perms: Deno.PermissionOptions = { read: [TMP], write: [TMP], env: ["TMPDIR"], run: [Deno.execPath()] };

Deno.test({
  name: "read-only: three tools with honest annotations, and no execute",
  permissions: perms,
  async fn() {
    const s = await session();
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["list_tables", "describe_table", "run_query"]);
    for (const tool of tools) {
      assert.deepEqual(tool.annotations, {
        readOnlyHint: true,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      });
      assert.ok(tool.outputSchema, `${tool.name} declares its output`);
    }
    await s.end();
  },
});

Deno.test({
  name: "writable from the start: execute is a destructive pattern tool without an output schema",
  permissions: perms,
  async fn() {
    const s = await session({ config: { writable: true } });
    const execute = (await s.client.listTools()).tools.find((t) => t.name === "execute");
    assert.deepEqual(execute?.annotations, {
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
    assert.equal(execute?.outputSchema, undefined);
    await s.end();
  },
});

Deno.test({
  name: "a reload to writable adds execute and sends tools/list_changed; back to read-only, execute refuses",
  permissions: perms,
  async fn() {
    const s = await session();
    const changed = new Promise<void>((resolve) => {
      (s.client as unknown as Client).setNotificationHandler(ToolListChangedNotificationSchema, () => resolve());
    });
    s.set({ writable: true });
    // The Manager's poll timer is unref'd and the in-memory pipe holds no I/O: keep the loop alive.
    const keepAlive = setTimeout(() => {}, 60_000);
    await changed;
    clearTimeout(keepAlive);
    assert.ok((await s.client.listTools()).tools.some((t) => t.name === "execute"));
    const done = await s.client.callTool({ name: "execute", arguments: { sql: "DELETE FROM audit" } });
    assert.equal(done.isError, undefined);
    s.set({ writable: false });
    const refused = await s.client.callTool({ name: "execute", arguments: { sql: "DELETE FROM products" } });
    assert.equal(refused.isError, true);
    assert.equal(textOf(refused), 'Cannot execute: writing is turned off in the config ("writable": false)');
    assert.equal(s.count("products"), 3);
    // The toolkit cannot remove a tool, so it stays listed and refuses (see README).
    assert.ok(s.server.toolNames.includes("execute"));
    await s.end();
  },
});

Deno.test("every tool's own deadline is past the longest query_timeout_ms by a second, so a job's answers first", () => {
  assert.throws(() => ConfigSchema.parse({ query_timeout_ms: MAX_QUERY_TIMEOUT_MS + 1 }));
  assert.equal(ConfigSchema.parse({ query_timeout_ms: MAX_QUERY_TIMEOUT_MS }).query_timeout_ms, MAX_QUERY_TIMEOUT_MS);
  for (const tool of [listTablesTool, describeTableTool, runQueryTool, executeTool]) {
    assert.ok((tool.timeoutMs ?? Infinity) >= MAX_QUERY_TIMEOUT_MS + 1_000, `${tool.name}: ${tool.timeoutMs}`);
  }
});
