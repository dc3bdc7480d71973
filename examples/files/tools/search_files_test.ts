// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";

Deno.test({
  name: "search_files returns matches relative to the root and says whether it was cut short",
  permissions: { read: "inherit", write: "inherit" },
  async fn() {
    const s = await session();
    const result = await s.client.callTool({ name: "search_files", arguments: { path: ".", pattern: "*.md" } });
    assert.deepEqual(result.structuredContent, {
      root: s.data,
      path: ".",
      pattern: "*.md",
      matches: [{ name: "todo.md", path: "notes/todo.md", type: "file", size: 17 }],
      truncated: false,
      limits_hit: [],
    });
    const env = await s.client.callTool({ name: "search_files", arguments: { path: ".", pattern: "env" } });
    assert.deepEqual((env.structuredContent as { matches: unknown[] }).matches, [], ".env stays hidden");
    await s.end();
  },
});

Deno.test({
  name: "search_files answers isError for a missing pattern, a path-like pattern and a folder outside",
  permissions: { read: "inherit", write: "inherit" },
  async fn() {
    const s = await session();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ path: "." }, /Invalid argument "pattern"/],
      [{ path: ".", pattern: "notes/*.md" }, /matches names, not paths/],
      [{ path: "..", pattern: "*" }, /leaves the allowed folders/],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "search_files", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), reason);
    }
    await s.end();
  },
});
