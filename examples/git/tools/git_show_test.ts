// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_show shows a commit, or a file as of a revision, and refuses rev -p", async () => {
  const s = await session();
  try {
    const commit = textOf(await s.client.callTool({ name: "git_show", arguments: { repo: "r", rev: "HEAD" } }));
    assert.match(commit, /^commit [0-9a-f]{40}/);
    assert.match(commit, /\+export const a = 1;/);
    const file = await s.client.callTool({ name: "git_show", arguments: { repo: "r", rev: "HEAD", path: "src/a.ts" } });
    assert.equal(textOf(file), "export const a = 1;\n");
    const bad = await s.client.callTool({ name: "git_show", arguments: { repo: "r", rev: "-p" } });
    assertRefused(bad, /^Cannot use rev "-p": a revision may not start with "-"$/, "a rev that is an option");
    assert.match(textOf(bad), /may not start with "-"/);
  } finally {
    await s.end();
  }
});
