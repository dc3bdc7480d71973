// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp}
// `deno task test` type-checks every test file once, then runs the groups
// without checking again: a type error must still stop the run.
import assert from "node:assert/strict";
import { join } from "node:path";
import { copyProject } from "./_copy_project.ts";

Deno.test("deno task test stops at a type error in a test file, naming it, before any test runs", async () => {
  const dir = await copyProject();
  await Deno.writeTextFile(
    join(dir, "tools/broken_test.ts"),
    'Deno.test("never runs", () => {\n  const count: number = "three";\n  console.log(count);\n});\n',
  );
  const out = await new Deno.Command(Deno.execPath(), {
    // The broken file alone: its check needs nothing else, where tools/ would check the toolkit whole again.
    args: ["run", "--allow-read", "--allow-env=TMPDIR", "--allow-run", "scripts/test.ts", "tools/broken_test.ts"],
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 1, text);
  assert.match(text, /TS2322.*\n[\s\S]*tools\/broken_test\.ts/);
  assert.match(text, /test: the type check failed; no test ran/);
  assert.doesNotMatch(text, /\$ deno test|never runs/);
  await Deno.remove(dir, { recursive: true });
});
