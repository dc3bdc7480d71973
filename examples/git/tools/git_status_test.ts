// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_status shows the branch and changed files, and refuses an unknown repo", async () => {
  const s = await session();
  try {
    await Deno.writeTextFile(join(s.r, "README.md"), "changed\n");
    const ok = await s.client.callTool({ name: "git_status", arguments: { repo: "r" } });
    assert.equal(textOf(ok), "## main\n M README.md\n");
    const bad = await s.client.callTool({ name: "git_status", arguments: { repo: s.r } });
    assertRefused(bad, /^Cannot use repo ".*\/r": it is not a configured repository$/, "a path for a repo name");
    assert.match(textOf(bad), /is not a configured repository/);
  } finally {
    await s.end();
  }
});
