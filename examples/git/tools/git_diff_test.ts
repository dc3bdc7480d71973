// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_diff compares the work tree, a revision, or two revisions, and wants from with to", async () => {
  const s = await session();
  try {
    await Deno.writeTextFile(join(s.r, "src", "a.ts"), "export const a = 2;\n");
    const work = textOf(await s.client.callTool({ name: "git_diff", arguments: { repo: "r", path: "src" } }));
    assert.match(work, /^\+export const a = 2;$/m);
    const none = textOf(
      await s.client.callTool({ name: "git_diff", arguments: { repo: "r", from: "HEAD", to: "HEAD" } }),
    );
    assert.equal(none, "");
    const bad = await s.client.callTool({ name: "git_diff", arguments: { repo: "r", to: "HEAD" } });
    assertRefused(bad, /^Cannot use to: it needs from$/, "to without from");
    assert.match(textOf(bad), /needs from/);
  } finally {
    await s.end();
  }
});
