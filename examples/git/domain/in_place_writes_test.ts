// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=mkfifo,sh
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { assertInPlaceWrites } from "./in_place_writes.ts";

async function run(program: "sh" | "mkfifo", ...args: string[]): Promise<void> {
  const out = await new Deno.Command(program, { args }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

/** Deno.symlink needs unscoped permissions: the shell makes the link instead. */
const symlink = (target: string, path: string) => run("sh", "-c", 'ln -s "$0" "$1"', target, path);

const refused = (shown: string, why: string) => (err: unknown) => {
  assert.ok(err instanceof PolicyError && err.code === "not-a-file", String(err));
  assert.equal(
    err.message,
    `Cannot commit to repo "app": its git data holds "${shown}", which a commit writes in place, and it ${why}`,
  );
  return true;
};
const elsewhere = ": the write would land in another file (refused whatever allow_hard_links says)";

Deno.test("assertInPlaceWrites() refuses a COMMIT_EDITMSG or reflog with a second name, a link or a FIFO, in the git and common directories", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "in-place-writes-" }));
  try {
    const gitDir = join(base, "worktrees", "wt");
    const commonDir = join(base, "common");
    const outside = join(base, "outside.txt");
    await Deno.writeTextFile(outside, "private\n");
    // Nothing there yet: git creates them.
    await Deno.mkdir(gitDir, { recursive: true });
    await Deno.mkdir(join(commonDir, "logs", "refs", "heads"), { recursive: true });
    await assertInPlaceWrites("app", gitDir, commonDir);
    await Deno.writeTextFile(join(gitDir, "COMMIT_EDITMSG"), "m\n");
    await Deno.mkdir(join(gitDir, "logs"));
    await Deno.writeTextFile(join(gitDir, "logs", "HEAD"), "x\n");
    const main = join(commonDir, "logs", "refs", "heads", "main");
    await Deno.writeTextFile(main, "x\n");
    await assertInPlaceWrites("app", gitDir, commonDir);

    await Deno.remove(join(gitDir, "COMMIT_EDITMSG"));
    await Deno.link(outside, join(gitDir, "COMMIT_EDITMSG"));
    await assert.rejects(
      assertInPlaceWrites("app", gitDir, commonDir),
      refused("COMMIT_EDITMSG", `has 2 hard links${elsewhere}`),
    );
    await Deno.remove(join(gitDir, "COMMIT_EDITMSG"));

    await Deno.remove(main);
    await Deno.link(outside, main);
    await assert.rejects(
      assertInPlaceWrites("app", gitDir, commonDir),
      refused("logs/refs/heads/main", `has 2 hard links${elsewhere}`),
    );
    await Deno.remove(main);

    await Deno.remove(join(gitDir, "logs", "HEAD"));
    await symlink(outside, join(gitDir, "logs", "HEAD"));
    await assert.rejects(
      assertInPlaceWrites("app", gitDir, commonDir),
      refused("logs/HEAD", `is a symbolic link${elsewhere}`),
    );
    await Deno.remove(join(gitDir, "logs", "HEAD"));
    await run("mkfifo", join(gitDir, "logs", "HEAD"));
    await assert.rejects(assertInPlaceWrites("app", gitDir, commonDir), refused("logs/HEAD", "is not a regular file"));
    await Deno.remove(join(gitDir, "logs", "HEAD"));

    // A linked logs folder: every file below it would be written through it.
    await Deno.remove(join(gitDir, "logs"), { recursive: true });
    await symlink(join(commonDir, "logs"), join(gitDir, "logs"));
    await assert.rejects(
      assertInPlaceWrites("app", gitDir, commonDir),
      refused("logs", `is a symbolic link${elsewhere}`),
    );
    await Deno.remove(join(gitDir, "logs"));
    await assertInPlaceWrites("app", gitDir, commonDir);
    assert.equal(await Deno.readTextFile(outside), "private\n");
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});
