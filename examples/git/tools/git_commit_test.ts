// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { session, textOf } from "./_session.ts";
import { assertRefused } from "../../served.ts";
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
      assertRefused(result, reason, JSON.stringify(args));
    }
  } finally {
    await s.end();
  }
});

Deno.test("git_commit refuses a message or paths longer than git can take as arguments, naming the limit, and commits nothing", async () => {
  const s = await session();
  try {
    await Deno.writeTextFile(join(s.w, "README.md"), "changed\n");
    const head = await s.fixture.git(s.w, "rev-parse", "HEAD");
    // 60,000 characters, within the schema's 65,536, but 180,000 bytes: over Linux's 128 KiB for one argument.
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { repo: "w", message: "中".repeat(60_000), paths: ["README.md"] },
        /^Cannot use message: it is 180000 bytes of UTF-8, over the 131071 git takes as one argument$/,
      ],
      [
        { repo: "w", message: "m", paths: Array.from({ length: 1000 }, (_, i) => `${"a".repeat(4000)}${i}`) },
        /^Cannot use paths: together they are \d+ bytes of UTF-8, over the 524288 git can take$/,
      ],
    ];
    for (const [args, reason] of cases) {
      const result = await s.client.callTool({ name: "git_commit", arguments: args });
      assertRefused(result, reason, JSON.stringify(args));
    }
    assert.equal(await s.fixture.git(s.w, "rev-parse", "HEAD"), head);
    assert.equal(await s.fixture.git(s.w, "diff", "--cached", "--name-only"), "", "something was staged");
    // The longest message allowed: 43,690 three-byte characters, 131,070 bytes.
    const longest = "中".repeat(43_690);
    const done = await s.client.callTool({
      name: "git_commit",
      arguments: { repo: "w", message: longest, paths: ["README.md"] },
    });
    assert.equal(done.isError, undefined, textOf(done));
    assert.equal(await s.fixture.git(s.w, "log", "-1", "--format=%B"), `${longest}\n\n`);
  } finally {
    await s.end();
  }
});
