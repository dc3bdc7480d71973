// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-env=TMPDIR
import assert from "node:assert/strict";
import { join } from "node:path";
import { CHILD_ENV_NAMES } from "../internal/child_env.ts";
import { testFilesByPermissions } from "./test_files.ts";

Deno.test("testFilesByPermissions() groups test files by their declared flags, in any order, and fills in {tmp}, {repo} and {child-env}", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(join(root, "a/testdata"), { recursive: true });
  await Deno.writeTextFile(
    join(root, "a/one_test.ts"),
    "// test-permissions: --allow-read={repo} --allow-write={tmp}\n",
  );
  await Deno.writeTextFile(join(root, "two_test.ts"), "// test-permissions: --allow-read={repo} --allow-write={tmp}\n");
  await Deno.writeTextFile(join(root, "spawns_test.ts"), "// test-permissions: --allow-env=HOME,{child-env}\n");
  // The same permissions as two_test.ts, in another order: one group, one process.
  await Deno.writeTextFile(
    join(root, "three_test.ts"),
    "// test-permissions: --allow-write={tmp} --allow-read={repo}\n",
  );
  await Deno.writeTextFile(join(root, "list_test.ts"), "// test-permissions: --allow-run=sh,ln,sh --allow-env\n");
  await Deno.writeTextFile(join(root, "bare_test.ts"), "Deno.test('x', () => {});\n");
  await Deno.writeTextFile(join(root, "a/testdata/skip_test.ts"), "");
  await Deno.writeTextFile(join(root, "helper.ts"), "// test-permissions: -A\n");
  const groups = await testFilesByPermissions(root, { tmp: "/T" });
  assert.deepEqual(groups.map(({ flags, files }) => [flags, files]).sort(), [
    [[], ["bare_test.ts"]],
    [["--allow-env", "--allow-run=ln,sh"], ["list_test.ts"]],
    [[`--allow-env=${["HOME", ...CHILD_ENV_NAMES].sort().join(",")}`], ["spawns_test.ts"]],
    [[`--allow-read=${root}`, "--allow-write=/T"], ["a/one_test.ts", "three_test.ts", "two_test.ts"]],
  ]);
  assert.deepEqual(await testFilesByPermissions(root, { tmp: "/T", only: ["a/"] }), [{
    flags: [`--allow-read=${root}`, "--allow-write=/T"],
    files: ["a/one_test.ts"],
  }]);
  await Deno.remove(root, { recursive: true });
});

Deno.test("testFilesByPermissions() keeps a root or temp directory whose path holds white space in one flag each", async () => {
  const parent = await Deno.realPath(await Deno.makeTempDir());
  // A space and a tab in the root, two spaces in the temp directory: each substituted path must stay one word.
  const root = join(parent, "My Projects/a\tb");
  await Deno.mkdir(root, { recursive: true });
  const tmp = join(parent, "temp  dir");
  await Deno.writeTextFile(
    join(root, "one_test.ts"),
    "// test-permissions:\t--allow-write={tmp}  --allow-read={repo},{tmp} --allow-run\n",
  );
  await Deno.writeTextFile(
    join(root, "two_test.ts"),
    "// test-permissions: --allow-run --allow-read={tmp},{repo} --allow-write={tmp}\n",
  );
  assert.deepEqual(await testFilesByPermissions(root, { tmp }), [{
    flags: ["--allow-read=" + [root, tmp].sort().join(","), "--allow-run", `--allow-write=${tmp}`],
    files: ["one_test.ts", "two_test.ts"],
  }]);
  await Deno.remove(parent, { recursive: true });
});

Deno.test({
  name: "testFilesByPermissions() needs read access to the root",
  permissions: { read: false, env: ["TMPDIR"] },
  async fn() {
    await assert.rejects(() => testFilesByPermissions("/nonexistent-root", { tmp: "/T" }), Deno.errors.NotCapable);
  },
});
