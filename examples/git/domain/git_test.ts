// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill
import assert from "node:assert/strict";
import { join } from "node:path";
import { arg, PolicyError } from "@forge/toolkit/validate";
import { ConfigSchema } from "./config.ts";
import { fixture } from "./_fixture.ts";
import { Git } from "./git.ts";

Deno.test("Git.repo() refuses an unknown name and a configured repository whose folder is missing", async () => {
  const f = await fixture();
  try {
    const config = ConfigSchema.parse({ repos: [{ name: "gone", path: join(f.base, "gone") }] });
    const git = await Git.open(config, f.base);
    assert.throws(() => git.repo("other"), (err) => err instanceof PolicyError && err.code === "outside-roots");
    assert.throws(() => git.repo("gone"), (err) => err instanceof PolicyError && err.code === "not-found");
  } finally {
    await f.end();
  }
});

Deno.test("Git.run() refuses a repository whose driver name -c cannot pin, and runs nothing of it", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "a.txt": "a\n", ".gitattributes": "* filter=a=b\n" });
    const marker = join(f.base, "marker");
    await f.git(dir, "config", "filter.a=b.clean", `touch ${marker}`);
    await Deno.writeTextFile(join(dir, "a.txt"), "b\n");
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    const drivers = await git.drivers(git.repo("r"));
    assert.deepEqual(drivers.unpinnable, ["a=b"]);
    await assert.rejects(
      git.run(git.repo("r"), []),
      (err) => err instanceof PolicyError && /cannot switch off/.test(err.message),
    );
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  } finally {
    await f.end();
  }
});

Deno.test("Git.run() reports git's failure with the work tree's path replaced by the repo's name", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    await assert.rejects(
      git.run(git.repo("r"), [arg.word("show"), arg.value("rev", "no-such-rev")]),
      (err: Error) => /^Cannot run git show in repo "r": /.test(err.message) && !err.message.includes(dir),
    );
  } finally {
    await f.end();
  }
});
