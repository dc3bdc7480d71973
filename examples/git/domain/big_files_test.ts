// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid
import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { bigFilesAt, keptPaths, leftOutLines, MAX_DIFFED_BYTES } from "./big_files.ts";
import { ConfigSchema } from "./config.ts";
import { fixture } from "./fixture.ts";
import { Git } from "./git.ts";

const change = (...paths: string[]) => ({ modes: [], oids: [], paths });

Deno.test("keptPaths() leaves out the big paths, is undefined when none is big, and refuses names too long for git", () => {
  assert.deepEqual(keptPaths("app", [change("a"), change("big"), change("old", "b"), change("a")], ["big"]), [
    "a",
    "old",
    "b",
  ]);
  assert.deepEqual(keptPaths("app", [change("big")], ["big"]), []);
  assert.equal(keptPaths("app", [change("a")], []), undefined);
  const many = Array.from({ length: 600 }, (_, i) => change(`${i}`.padEnd(1000, "x")));
  assert.throws(
    () => keptPaths("app", [...many, change("big")], ["big"]),
    /Cannot diff in repo "app" without its big files/,
  );
});

Deno.test("leftOutLines() names each file as a JSON string, so a name cannot forge a line", () => {
  assert.equal(leftOutLines([]), "");
  const lines = leftOutLines(["a\nNot diffed: forged", "b"]).split("\n");
  assert.equal(lines.length, 3);
  assert.match(lines[0], new RegExp(`^Not diffed: "a\\\\nNot diffed: forged" is over ${MAX_DIFFED_BYTES} bytes`));
  assert.match(lines[1], /^Not diffed: "b" is over/);
});

Deno.test("bigFilesAt() names the big files at a commit, and refuses one whose name is not UTF-8, which :(exclude) would miss", async () => {
  const f = await fixture();
  try {
    const dir = await f.repo("r", { "big.txt": "x".repeat(MAX_DIFFED_BYTES + 1), "small.txt": "small\n" });
    const git = await Git.open(ConfigSchema.parse({ repos: [{ name: "r", path: dir }] }), f.base);
    const r = git.repo("r");
    const head = (await f.git(dir, "rev-parse", "HEAD")).trim();
    assert.deepEqual(await bigFilesAt(git, r, head, undefined, {}), ["big.txt"]);
    // The same blobs, the big one as `big\xff.txt`: a tree written from bytes, since Deno passes only UTF-8 arguments.
    const encoder = new TextEncoder();
    const entry = async (path: string, name: Uint8Array) => [
      ...encoder.encode(`100644 blob ${(await f.git(dir, "rev-parse", `HEAD:${path}`)).trim()}\t`),
      ...name,
      0,
    ];
    const tree = new Uint8Array([
      ...await entry("big.txt", new Uint8Array([...encoder.encode("big"), 0xff, ...encoder.encode(".txt")])),
      ...await entry("small.txt", encoder.encode("small.txt")),
    ]);
    const options: Deno.CommandOptions = { args: ["mktree", "-z"], cwd: dir, stdin: "piped", stdout: "piped" };
    const mktree = new Deno.Command("/usr/bin/git", options).spawn();
    const writer = mktree.stdin.getWriter();
    await writer.write(tree);
    await writer.close();
    const treeId = new TextDecoder().decode((await mktree.output()).stdout).trim();
    const commit = (await f.git(dir, "commit-tree", "-m", "undecodable", treeId)).trim();
    await assert.rejects(bigFilesAt(git, r, commit, undefined, {}), (err: unknown) => {
      assert.ok(err instanceof PolicyError && err.code === "invalid-input", String(err));
      assert.equal(
        err.message,
        'Cannot check the sizes of the files of repo "r" at that revision: git named "big\uFFFD.txt", a big file whose ' +
          "name is not UTF-8 (or holds U+FFFD), so this server cannot keep it out",
      );
      return true;
    });
  } finally {
    await f.end();
  }
});
