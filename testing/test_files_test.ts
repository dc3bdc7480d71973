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
  assert.deepEqual(Object.fromEntries(groups), {
    [`--allow-read=${root} --allow-write=/T`]: ["a/one_test.ts", "three_test.ts", "two_test.ts"],
    [`--allow-env=${["HOME", ...CHILD_ENV_NAMES].sort().join(",")}`]: ["spawns_test.ts"],
    "--allow-env --allow-run=ln,sh": ["list_test.ts"],
    "": ["bare_test.ts"],
  });
  assert.deepEqual([...(await testFilesByPermissions(root, { tmp: "/T", only: ["a/"] })).values()], [[
    "a/one_test.ts",
  ]]);
  await Deno.remove(root, { recursive: true });
});

Deno.test({
  name: "testFilesByPermissions() needs read access to the root",
  permissions: { read: false, env: ["TMPDIR"] },
  async fn() {
    await assert.rejects(() => testFilesByPermissions("/nonexistent-root", { tmp: "/T" }), Deno.errors.NotCapable);
  },
});
