// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { quote } from "@forge/toolkit/validate";
import { session, textOf } from "./_session.ts";

Deno.test({
  name: "stat describes a file relative to its root and refuses a path outside",
  permissions: { read: "inherit", write: "inherit" },
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "stat", arguments: { path: "notes/todo.md" } });
    const info = result.structuredContent as Record<string, unknown>;
    assert.deepEqual({ ...info, modified: typeof info.modified }, {
      root: s.data,
      path: "notes/todo.md",
      type: "file",
      size: 17,
      modified: "string",
    });
    const outside = await s.client.callTool({ name: "stat", arguments: { path: `${s.outside}/canary.txt` } });
    assert.equal(outside.isError, true);
    assert.equal(
      textOf(outside),
      `Cannot stat ${quote(`${s.outside}/canary.txt`)}: the path leaves the allowed folders`,
    );
    await s.end();
  },
});
