// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid,/usr/bin/true
import assert from "node:assert/strict";
import { join } from "node:path";
import { arg, PolicyError } from "@forge/toolkit/validate";
import { ConfigSchema } from "./config.ts";
import { fixture } from "./fixture.ts";
import { Git } from "./git.ts";

Deno.test("Git.repo() refuses an unknown name, a repository whose folder is missing, and one outside the process's grants", async () => {
  const f = await fixture();
  try {
    // This test may read only the temp folder: as a server reloaded with a repository it was not started with.
    const config = ConfigSchema.parse({
      repos: [
        { name: "gone", path: join(f.base, "gone") },
        { name: "out", path: "/etc" },
        { name: "far", path: await f.repo("far"), allow_outside: ["/etc"] },
      ],
    });
    const git = await Git.open(config, f.base);
    assert.throws(() => git.repo("other"), (err) => err instanceof PolicyError && err.code === "outside-roots");
    assert.throws(() => git.repo("gone"), (err) => err instanceof PolicyError && err.code === "not-found");
    const restart = "in the config but outside what this process was started with; " +
      "restart the server with the flags from --print-permissions";
    assert.throws(() => git.repo("out"), {
      name: "PolicyError",
      code: "no-permission",
      message: `Cannot use repo "out": its folder is ${restart}`,
    });
    assert.throws(() => git.repo("far"), {
      message: `Cannot use repo "far": a folder of its allow_outside is ${restart}`,
    });
    assert.ok(git.refused.includes(`Cannot use repo "out": its folder is ${restart}`), "said once when opened");
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

Deno.test("Git.run() refuses a repository whose driver name is not UTF-8: -c would pin another name and git status ran the filter", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "a.txt": "a\n" });
    const marker = join(f.base, "marker");
    const bytes = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));
    await Deno.writeFile(join(dir, ".gitattributes"), bytes("* filter=\xff\n"));
    await Deno.writeFile(join(dir, ".git", "config"), bytes(`[filter "\xff"]\n\tclean = touch ${marker}\n`), {
      append: true,
    });
    await Deno.writeTextFile(join(dir, "a.txt"), "b\n");
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    assert.deepEqual((await git.drivers(git.repo("r"))).unpinnable, ["\uFFFD"]);
    await assert.rejects(
      git.run(git.repo("r"), [arg.word("status"), arg.flag("--porcelain")]),
      (err) => err instanceof PolicyError && /cannot switch off/.test(err.message),
    );
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound);
  } finally {
    await f.end();
  }
});

Deno.test("Git.drivers() answers for the config as it reads now: a driver added, removed or in config.worktree is seen", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    await f.git(dir, "config", "diff.x.textconv", "cat");
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    const r = git.repo("r");
    assert.deepEqual((await git.drivers(r)).diffs, ["x"]);
    assert.deepEqual((await git.drivers(r)).diffs, ["x"]);
    await f.git(dir, "config", "filter.y.clean", "cat");
    assert.deepEqual(await git.drivers(r), {
      filters: ["y"],
      diffs: ["x"],
      merges: [],
      unpinnable: [],
      ignoreRevsFiles: [],
    });
    await f.git(dir, "config", "--unset", "diff.x.textconv");
    assert.deepEqual((await git.drivers(r)).diffs, []);
    await Deno.writeTextFile(join(dir, ".git", "config.worktree"), '[merge "z"]\n\tdriver = cat\n');
    assert.deepEqual((await git.drivers(r)).merges, ["z"]);
  } finally {
    await f.end();
  }
});

Deno.test("Git.run() says a failure it does not know as 'git failed (ref …)', never in git's words", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    await assert.rejects(
      git.run(git.repo("r"), [arg.word("show"), arg.value("rev", "no-such-rev")]),
      (err: Error) => /^Cannot run git show in repo "r": git failed \(ref [0-9a-z]+-[0-9a-z]+\)$/.test(err.message),
    );
  } finally {
    await f.end();
  }
});

Deno.test("Git.run() reports a git that failed after writing past the cap, when it ended before the cap's kill", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r");
    // A commit whose message passes the cap and whose one file's content is missing: `git show`
    // writes the message, then fails (exit 128) and writes nothing more.
    const entry = new Uint8Array([...new TextEncoder().encode("100644 f\0"), ...new Array(20).fill(0x11)]);
    await Deno.writeFile(join(f.base, "tree"), entry);
    const tree = (await f.git(dir, "hash-object", "-t", "tree", "-w", "--literally", join(f.base, "tree"))).trim();
    const who = "A <a@example.com> 1 +0000";
    const body = `tree ${tree}\nauthor ${who}\ncommitter ${who}\n\n${"x".repeat(1500)}\n`;
    await Deno.writeTextFile(join(f.base, "commit"), body);
    const commit = (await f.git(dir, "hash-object", "-t", "commit", "-w", join(f.base, "commit"))).trim();
    // A killer that kills nothing stands for a git that ends before the kill lands.
    const config = ConfigSchema.parse({
      repos: [{ name: "r", path: dir }],
      max_output_bytes: 1024,
      kill: "/usr/bin/true",
    });
    const git = await Git.open(config, f.base);
    await assert.rejects(
      git.run(git.repo("r"), [arg.word("show"), arg.value("rev", commit)]),
      (err: Error) =>
        err instanceof PolicyError && /^Cannot run git show in repo "r": git failed \(ref /.test(err.message),
    );
  } finally {
    await f.end();
  }
});
