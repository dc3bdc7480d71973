// test-permissions: --allow-run=/usr/bin/git,/bin/busybox,/bin/python3
import assert from "node:assert/strict";
import { checkPermissions, missingPermissions } from "./check_permissions.ts";
import type { PermissionSet } from "./permission_set.ts";

const none: PermissionSet = { read: [], write: [], net: [], denyNet: [], env: [] };

// Beside /usr/bin/git this file is granted two programs by absolute paths that PATH does not resolve their bare names to.
const granted = ["/usr/bin/git", "/bin/busybox", "/bin/python3"];

Deno.test("checkPermissions() accepts --allow-run of exactly the programs the set runs", async () => {
  assert.deepEqual(await checkPermissions({ ...none, run: granted }), []);
});

Deno.test("checkPermissions() reports a granted interpreter named by an absolute path its bare name does not resolve to", async () => {
  assert.deepEqual(await checkPermissions({ ...none, run: ["/usr/bin/git"] }), [
    'run "/bin/busybox"',
    'run "/bin/python3"',
  ]);
});

Deno.test("checkPermissions() reports a granted program the set does not run", async () => {
  const excess = await checkPermissions(none);
  assert.ok(excess.includes('run "git"'), excess.join("; "));
});

Deno.test("missingPermissions() reports a program the set runs that Deno does not grant", async () => {
  assert.deepEqual(await missingPermissions({ ...none, run: ["/usr/bin/git", "/usr/bin/kill"] }), [
    'run "/usr/bin/kill"',
  ]);
});
