// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";

Deno.test("git_log maps ref, path and max_count, and refuses a ref that is an option", async () => {
  const s = await session();
  try {
    await Deno.writeTextFile(join(s.r, "README.md"), "second\n");
    await s.fixture.git(s.r, "commit", "-qam", "second");
    const one = textOf(await s.client.callTool({ name: "git_log", arguments: { repo: "r", max_count: 1 } }));
    assert.match(one, /^commit [0-9a-f]{40}\nAuthor: Test <test@example\.com>\nDate: {3}\d{4}-/);
    assert.match(one, /second/);
    assert.doesNotMatch(one, /first/);
    const byPath = await s.client.callTool({
      name: "git_log",
      arguments: { repo: "r", ref: "main", path: "src/a.ts" },
    });
    assert.match(textOf(byPath), /first/);
    assert.doesNotMatch(textOf(byPath), /second/);
    const bad = await s.client.callTool({ name: "git_log", arguments: { repo: "r", ref: "--output=/tmp/x" } });
    assertRefused(
      bad,
      /^Cannot use ref "--output=\/tmp\/x": a revision may not start with "-"$/,
      "a ref that is an option",
    );
    const big = await s.client.callTool({ name: "git_log", arguments: { repo: "r", max_count: 5000 } });
    assertRefused(
      big,
      /^Invalid argument "max_count": must be at most 1000 \(maximum\), got 5000$/,
      "max_count over its bound",
    );
  } finally {
    await s.end();
  }
});
