// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertNoIncludes } from "./config_includes.ts";
import { fixture } from "./fixture.ts";
import { gitLayout } from "./git_layout.ts";

const refused = (what: RegExp) => (err: unknown) => {
  assert.ok(err instanceof PolicyError && err.code === "no-permission", String(err));
  assert.match(err.message, what);
  return true;
};

Deno.test("assertNoIncludes() refuses an include or includeIf section in config or config.worktree, in any case", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r");
    const layout = await gitLayout("r", r);
    await assertNoIncludes("r", layout);
    const config = join(r, ".git", "config");
    const plain = await Deno.readTextFile(config);
    for (const section of ["[include]\n\tpath = /etc/gitconfig\n", '[IncludeIf "gitdir:/"]\n\tpath = x\n']) {
      await Deno.writeTextFile(config, plain + section);
      await assert.rejects(() => assertNoIncludes("r", layout), refused(/^Cannot use repo "r": its config includes/));
    }
    await Deno.writeTextFile(config, plain);
    await Deno.writeTextFile(join(r, ".git", "config.worktree"), "[include]\npath = ../../outside\n");
    await assert.rejects(() => assertNoIncludes("r", layout), refused(/includes other files/));
    await Deno.writeTextFile(join(r, ".git", "config.worktree"), "x".repeat(1024 * 1024 + 1));
    await assert.rejects(() => assertNoIncludes("r", layout), refused(/is not a file of at most 1 MiB/));
  } finally {
    await f.end();
  }
});

Deno.test("assertNoIncludes() lets through a config whose keys only mention includes in their values", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r");
    await f.git(r, "config", "remote.origin.url", "https://example.com/include.git");
    await assertNoIncludes("r", await gitLayout("r", r));
  } finally {
    await f.end();
  }
});

Deno.test("assertNoIncludes() returns the config files' bytes as read, those that are not UTF-8 included", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r");
    const bytes = Uint8Array.from('[diff "\xff\x81"]\n\ttextconv = cat\n', (c) => c.charCodeAt(0));
    await Deno.writeFile(join(r, ".git", "config"), bytes);
    const files = await assertNoIncludes("r", await gitLayout("r", r));
    assert.deepEqual(files.common?.bytes, bytes);
    assert.equal(files.common?.text.length, bytes.length);
    assert.equal(files.worktree, undefined);
  } finally {
    await f.end();
  }
});
