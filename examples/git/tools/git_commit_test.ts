// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill
import assert from "node:assert/strict";
import { join } from "node:path";
import { session, textOf } from "./_session.ts";
import { probe } from "@forge/toolkit/testing";

Deno.test("git_commit is probed as commit:<repo> without committing, then commits the paths", async () => {
  const s = await session();
  try {
    await Deno.writeTextFile(join(s.w, "README.md"), "changed\n");
    const args = { repo: "w", message: "Update README", paths: ["README.md"] };
    assert.deepEqual((await probe(s.client, "git_commit", args)).patterns, ["commit:w"]);
    assert.equal((await s.fixture.git(s.w, "rev-list", "--count", "HEAD")).trim(), "1");
    const done = await s.client.callTool({ name: "git_commit", arguments: args });
    const outcome = done.structuredContent as { repo: string; paths: string[] };
    assert.deepEqual([outcome.repo, outcome.paths], ["w", ["README.md"]]);
    assert.equal((await s.fixture.git(s.w, "log", "-1", "--format=%s")).trim(), "Update README");
  } finally {
    await s.end();
  }
});

Deno.test("git_commit refuses a read-only repo and paths outside the work tree, with no pattern", async () => {
  const s = await session();
  try {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ repo: "r", message: "m", paths: ["README.md"] }, /is read-only/],
      [{ repo: "w", message: "m", paths: ["../x"] }, /leaves the repository's work tree/],
      [{ repo: "w", message: "m", paths: [".git/config"] }, /\.git folder is not served/],
      [{ repo: "w", message: "m", paths: [] }, /paths/],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "git_commit", arguments: args });
      assert.equal(result.isError, true, JSON.stringify(args));
      assert.match(textOf(result), reason);
    }
  } finally {
    await s.end();
  }
});
