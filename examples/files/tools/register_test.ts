// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { listDirTool } from "./list_dir.ts";
import { readFileTool } from "./read_file.ts";
import { searchFilesTool } from "./search_files.ts";
import { statTool } from "./stat.ts";
import { writeFileTool } from "./write_file.ts";
import { session } from "./_session.ts";

Deno.test({
  name: "registerAll() lists five tools with honest hints: four read-only, write_file destructive",
  permissions: { read: "inherit", write: "inherit" },
  async fn() {
    const s = await session();
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["read_file", "list_dir", "stat", "search_files", "write_file"]);
    for (const tool of tools) {
      const hints = tool.annotations as Record<string, boolean>;
      assert.equal(hints.openWorldHint, false, tool.name);
      assert.equal(hints.readOnlyHint, tool.name !== "write_file", tool.name);
      assert.equal(hints.destructiveHint, tool.name === "write_file", tool.name);
      assert.equal(hints.idempotentHint, true, tool.name);
    }
    await s.end();
  },
});

Deno.test("every tool has its own per-call deadline", () => {
  for (const tool of [readFileTool, listDirTool, statTool, searchFilesTool, writeFileTool]) {
    assert.ok(typeof tool.timeoutMs === "number" && tool.timeoutMs > 0 && tool.timeoutMs <= 15_000, tool.name);
  }
});
