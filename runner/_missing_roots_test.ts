// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run=ln
import assert from "node:assert/strict";
import { join } from "node:path";
import { missingRootWarnings } from "./_missing_roots.ts";
import { definePolicy } from "../validate/policy.ts";

Deno.test("missingRootWarnings() names each missing root once, a dangling link among them, and no root that exists", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  const [here, gone, dangling] = [join(dir, "here"), join(dir, "gone"), join(dir, "dangling")];
  await Deno.mkdir(here);
  // Deno.symlink() needs unscoped --allow-read and --allow-write: `ln` makes the link.
  assert.ok((await new Deno.Command("ln", { args: ["-s", join(dir, "nothing"), dangling] }).output()).success);
  const policy = definePolicy({ readRoots: [here, gone, dangling], writeRoots: [gone] });
  const line = (root: string) =>
    `notes: warning: the folder ${
      JSON.stringify(root)
    } does not exist; calls that use it are refused until it is created`;
  assert.deepEqual(await missingRootWarnings("notes", policy), [line(gone), line(dangling)]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("missingRootWarnings() leaves a root it may not look at to the permission check", {
  permissions: { read: false },
}, async () => {
  assert.deepEqual(await missingRootWarnings("notes", definePolicy({ readRoots: ["/srv/nowhere"] })), []);
});
