// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";

import { session } from "./_session.ts";

Deno.test("registerAll() lists six read-only tools and git_commit as the one tool with side effects", async () => {
  const s = await session();
  try {
    const { tools } = await s.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), [
      "git_status",
      "git_log",
      "git_show",
      "git_diff",
      "git_grep",
      "git_blame",
      "git_commit",
    ]);
    for (const tool of tools) {
      assert.equal(tool.annotations?.readOnlyHint, tool.name !== "git_commit", tool.name);
      assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    }
  } finally {
    await s.end();
  }
});
