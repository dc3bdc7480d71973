// test-permissions: --allow-run --allow-read={repo} --allow-env={child-env}
// The deno.json tasks of this example (checked by ../tasks_check.ts); of its
// own, the compiled binary may run exactly git and kill.
import assert from "node:assert/strict";
import { assertCompileDryRun, assertTaskGrantsPrinted, TASK_PERMISSIONS } from "../tasks_check.ts";

Deno.test({
  name: "the git task grants exactly what --print-permissions prints for the sample config",
  permissions: TASK_PERMISSIONS,
  async fn() {
    const args = await assertTaskGrantsPrinted("git");
    assert.ok(args.includes("--allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid"), args.join(" "));
  },
});

Deno.test({
  name: "compile:git --dry-run builds deno compile from the printed flags, embeds the config and names dist/git",
  permissions: TASK_PERMISSIONS,
  async fn() {
    const command = await assertCompileDryRun("git");
    assert.ok(command.includes("--allow-run=/usr/bin/git,/usr/bin/kill,/usr/bin/setsid"), command.join(" "));
  },
});
