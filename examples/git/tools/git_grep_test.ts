// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_grep finds lines by pattern, at a revision too; a pattern may start with a dash", async () => {
  const s = await session();
  try {
    const found = await s.client.callTool({ name: "git_grep", arguments: { repo: "r", pattern: "const a" } });
    assert.equal(textOf(found), "src/a.ts:1:export const a = 1;\n");
    const atRef = await s.client.callTool({
      name: "git_grep",
      arguments: { repo: "r", pattern: "hello", ref: "HEAD" },
    });
    assert.equal(textOf(atRef), "HEAD:README.md:1:# hello\n");
    const dash = await s.client.callTool({ name: "git_grep", arguments: { repo: "r", pattern: "-no-such" } });
    assert.equal(dash.isError, undefined);
    assert.equal(textOf(dash), "");
    const bad = await s.client.callTool({ name: "git_grep", arguments: { repo: "r", pattern: "x", path: "../x" } });
    assertRefused(bad, /^Cannot use path "\.\.\/x": it leaves the repository's work tree$/, "a path out of the repo");
  } finally {
    await s.end();
  }
});
