// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_blame names the commit of each line, and refuses a path out of the work tree", async () => {
  const s = await session();
  try {
    const blame = textOf(await s.client.callTool({ name: "git_blame", arguments: { repo: "r", path: "src/a.ts" } }));
    assert.match(blame, /^\^?[0-9a-f]+ \(Test +\d{4}-\S+ 1\) export const a = 1;$/m);
    const bad = await s.client.callTool({ name: "git_blame", arguments: { repo: "r", path: "../../etc/passwd" } });
    assertRefused(
      bad,
      /^Cannot use path "\.\.\/\.\.\/etc\/passwd": it leaves the repository's work tree$/,
      "a path out of the repo",
    );
    assert.match(textOf(bad), /leaves the repository's work tree/);
  } finally {
    await s.end();
  }
});
