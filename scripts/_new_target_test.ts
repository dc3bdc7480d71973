// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { newTargetProblem } from "./_new_target.ts";

/** A symbolic link made by `ln` (Deno.symlink needs unscoped read and write). */
async function symlink(target: string, path: string): Promise<void> {
  assert.ok((await new Deno.Command("ln", { args: ["-s", target, path] }).output()).success);
}

Deno.test("newTargetProblem takes an absent or empty folder outside the checkout", async () => {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(join(root, "checkout"));
  await Deno.mkdir(join(root, "empty"));
  const checkout = join(root, "checkout");
  assert.equal(await newTargetProblem(join(root, "empty"), checkout), undefined);
  assert.equal(await newTargetProblem(join(root, "new/deep/server"), checkout), undefined);
  // A checkout-like sibling name is not inside it.
  assert.equal(await newTargetProblem(join(root, "checkout-server"), checkout), undefined);
});

Deno.test("newTargetProblem refuses a folder inside the checkout (its gate and publish would take the files; template/ would copy itself), also through a symlink", async () => {
  const root = await Deno.makeTempDir();
  const checkout = join(root, "checkout");
  await Deno.mkdir(join(checkout, "template"), { recursive: true });
  await symlink(checkout, join(root, "link"));
  for (
    const target of [
      join(checkout, "my-server"),
      join(checkout, "template/sub"),
      join(checkout, "a/../my-server"),
      join(checkout, "..hidden/my-server"),
      join(root, "link/my-server"),
    ]
  ) {
    assert.match((await newTargetProblem(target, checkout))!, /^is inside this checkout \(/, target);
  }
  // The checkout itself, and its parent, hold files: refused either way.
  assert.ok(await newTargetProblem(checkout, checkout));
  assert.equal(await newTargetProblem(root, checkout), "exists and is not empty");
});

Deno.test("newTargetProblem refuses a symlink to nothing, a file and a non-empty folder, and names why", async () => {
  const root = await Deno.makeTempDir();
  const checkout = join(root, "checkout");
  await Deno.mkdir(checkout);
  await symlink(join(root, "nowhere"), join(root, "dangling"));
  await Deno.writeTextFile(join(root, "file"), "mine");
  await Deno.mkdir(join(root, "full"));
  await Deno.writeTextFile(join(root, "full/keep.txt"), "mine");
  assert.equal(await newTargetProblem(join(root, "dangling"), checkout), "is a symbolic link to nothing");
  assert.equal(await newTargetProblem(join(root, "file"), checkout), "exists and is not a folder");
  assert.equal(await newTargetProblem(join(root, "full"), checkout), "exists and is not empty");
});

Deno.test("newTargetProblem refuses a path with a comma (no permission flag can grant it) or ${ (hosts expand it), also behind a symlink, and takes one with white space", async () => {
  const root = await Deno.makeTempDir();
  const checkout = join(root, "checkout");
  await Deno.mkdir(checkout);
  assert.match((await newTargetProblem(join(root, "a,b/srv"), checkout))!, /^has a comma in its path \(.*a,b\/srv\)/);
  assert.match((await newTargetProblem(join(root, "d${HOME}/srv"), checkout))!, /^has "\$\{" in its path/);
  await Deno.mkdir(join(root, "a,b"));
  await symlink(join(root, "a,b"), join(root, "plain"));
  assert.match((await newTargetProblem(join(root, "plain/srv"), checkout))!, /^has a comma in its path \(.*a,b\/srv\)/);
  // White space is fine: the project's test runner splits a declaration before it puts the project's path in
  // (testing/test_files_test.ts; scripts/new_test.ts runs a new project's tests under a path with a space).
  assert.equal(await newTargetProblem(join(root, "My Projects/srv"), checkout), undefined);
  assert.equal(await newTargetProblem(join(root, "tab\there/srv"), checkout), undefined);
  // Quotes, `$(…)` and non-ASCII letters are fine: the tasks pass paths as arguments, never through a shell.
  assert.equal(await newTargetProblem(join(root, `q'"$(x)josé`), checkout), undefined);
});
