// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { join } from "node:path";
import { PolicyError } from "@forge/toolkit/validate";
import { fixture } from "./fixture.ts";
import { assertPlainMailmap } from "./mailmap.ts";

Deno.test("assertPlainMailmap() passes no .mailmap or one with one name, and refuses a hard-linked or special one", async () => {
  const f = await fixture();
  try {
    const root = join(f.base, "tree");
    await Deno.mkdir(root);
    const mailmap = join(root, ".mailmap");
    await assertPlainMailmap(root, "app", false);
    await Deno.writeTextFile(mailmap, "A <a@example.com>\n");
    await assertPlainMailmap(root, "app", false);
    await Deno.link(mailmap, join(f.base, "second-name"));
    await assert.rejects(
      assertPlainMailmap(root, "app", false),
      (err) =>
        err instanceof PolicyError && err.code === "not-a-file" &&
        err.message === `Cannot blame in repo "app": git blame maps authors through the work tree's .mailmap, and ` +
            "it has 2 hard links; this server reads only work-tree files with one name (allow_hard_links is off)",
    );
    await assertPlainMailmap(root, "app", true);
    await Deno.remove(mailmap);
    await Deno.mkdir(mailmap);
    for (const allow of [false, true]) {
      await assert.rejects(assertPlainMailmap(root, "app", allow), /\.mailmap, and it is not a regular file$/);
    }
  } finally {
    await f.end();
  }
});

Deno.test("git_blame maps no author through a .mailmap hard-linked to an outside file, with or without a ref", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "a.txt": "line\n" });
    const outside = join(f.base, "outside-mailmap");
    await Deno.writeTextFile(outside, "Secret Name <test@example.com>\n");
    await Deno.link(outside, join(dir, ".mailmap"));
    const mgr = f.manager({ r: dir });
    for (const ref of [undefined, "HEAD"]) {
      await assert.rejects(mgr.blame("r", "a.txt", ref), /\.mailmap, and it has 2 hard links/);
    }
    // Allowed, git maps the author through it: the refusal is what keeps the name out.
    const allowed = f.manager({ r: dir }, { allow_hard_links: true });
    assert.match((await allowed.blame("r", "a.txt")).text, /Secret Name/);
    // With one name, the work tree's own .mailmap applies, as git blame has no switch to turn it off.
    await Deno.remove(join(dir, ".mailmap"));
    await Deno.writeTextFile(join(dir, ".mailmap"), "Own Name <test@example.com>\n");
    assert.match((await mgr.blame("r", "a.txt", "HEAD")).text, /Own Name/);
  } finally {
    await f.end();
  }
});
