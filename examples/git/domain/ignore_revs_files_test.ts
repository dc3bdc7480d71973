// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { fixture } from "./fixture.ts";
import { assertIgnoreRevsInside } from "./ignore_revs_files.ts";

async function ln(target: string, path: string): Promise<void> {
  const out = await new Deno.Command("/usr/bin/ln", { args: ["-s", target, path] }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
}

Deno.test("assertIgnoreRevsInside() takes work-tree files and refuses any name git would read from elsewhere", async () => {
  const f = await fixture();
  try {
    const r = await f.repo("r", { "revs": "# none\n", "linked": "# two names\n" });
    await Deno.mkdir(join(r, "dir"));
    await ln("/etc/passwd", join(r, "link"));
    await ln("/etc", join(r, "dir", "up"));
    await Deno.link(join(r, "linked"), join(f.base, "other"));
    await assertIgnoreRevsInside(r, "r", ["", "revs", "./revs", "missing"], false);
    await assertIgnoreRevsInside(r, "r", ["linked"], true);
    const outside = ["/etc/passwd", "../outside", "~/x", "~root/.ssh/id_rsa", "%(prefix)/etc/x", ".git/config"];
    // A name that was not UTF-8 (read as U+FFFD) is refused by the linked-folder check, never looked up.
    for (const file of [...outside, "link", "dir/up/passwd", "linked", "r\uFFFD"]) {
      await assert.rejects(
        () => assertIgnoreRevsInside(r, "r", ["revs", file], false),
        (err: unknown) => {
          assert.ok(err instanceof PolicyError && err.code === "outside-roots", `${file}: ${err}`);
          assert.match(err.message, /^Cannot blame in repo "r": its config names a blame\.ignoreRevsFile that is not/);
          assert.ok(!err.message.includes(file), "the name is never quoted");
          return true;
        },
      );
    }
  } finally {
    await f.end();
  }
});
