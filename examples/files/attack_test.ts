// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// The attack kit against the files server, started with exactly the flags it
// prints, in both protocol eras. Its first root is a symbolic link (as /tmp is
// on macOS), and the tree already holds links that leave the roots; the kit
// adds its own canaries beside and inside each root, and watches the whole
// tree: nothing outside `out` may change.
import { join } from "node:path";
import assert from "node:assert/strict";
import { assertNoFindings, attack, subprocessTarget } from "@forge/toolkit/testing";
import { denoRun, makeE2eTree, REPO, SCRIPT } from "./_e2e.ts";

Deno.test("the files server survives the attack kit under its printed flags, with a symlinked root", async () => {
  const tree = await makeE2eTree();
  const linked = join(tree.base, "linked-data");
  // ln, not Deno.symlink: this test's scoped read and write grants do not allow the latter.
  await new Deno.Command("ln", { args: ["-s", tree.data, linked] }).output();
  await tree.writeConfig({
    roots: [linked, tree.more],
    writable_roots: [tree.out],
    deny: ["**/*.secret"],
    max_bytes: 64,
  });
  // The printer may read the roots, so it can tell the link from its real folder and name both.
  const read = `--allow-read=${tree.config},${linked},${tree.more},${tree.out}`;
  const printed = await denoRun([read, SCRIPT, "-config", tree.config, "--print-permissions"]);
  assert.equal(printed.code, 0, printed.stderr);
  const flags = printed.stdout.trim().split(/\s+/);
  const target = subprocessTarget({ args: [...flags, SCRIPT, "-config", tree.config], cwd: REPO, name: "files" });
  const report = await attack(target, {
    watch: [tree.base],
    valid: {
      read_file: { path: "hello.txt" },
      stat: { path: "hello.txt" },
      list_dir: { path: "notes" },
      search_files: { path: ".", pattern: "*.md" },
      write_file: { path: "new.txt", content: "x" },
    },
  });
  assertNoFindings(report);
  await tree.remove();
});
