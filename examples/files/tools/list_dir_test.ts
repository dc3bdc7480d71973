// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";

Deno.test({
  name: "list_dir returns structured entries relative to the root, without denied ones",
  permissions: { read: "inherit", write: "inherit" },
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "list_dir", arguments: { path: "." } });
    assert.deepEqual(result.structuredContent, {
      root: s.data,
      path: ".",
      entries: [
        { name: "hello.txt", path: "hello.txt", type: "file", size: 6 },
        { name: "notes", path: "notes", type: "dir" },
      ],
      truncated: false,
    });
    assert.deepEqual(JSON.parse(textOf(result)), result.structuredContent);
    const file = await s.client.callTool({ name: "list_dir", arguments: { path: "hello.txt" } });
    assert.equal(file.isError, true);
    assert.match(textOf(file), /it is a file, not a folder/);
    const missing = await s.client.callTool({ name: "list_dir", arguments: {} });
    assert.equal(missing.isError, true);
    await s.end();
  },
});
