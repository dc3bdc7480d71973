// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { quote } from "@forge/toolkit/validate";
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
    // A refusal names what was asked: a listing, though the folder is resolved before it is listed.
    const gone = await s.client.callTool({ name: "list_dir", arguments: { path: "nope" } });
    assert.equal(textOf(gone), 'Cannot list "nope": no such file or folder');
    const out = await s.client.callTool({ name: "list_dir", arguments: { path: s.outside } });
    assert.equal(textOf(out), `Cannot list ${quote(s.outside)}: the path leaves the allowed folders`);
    await s.end();
  },
});
