// test-permissions: --allow-read={tmp},/etc/passwd,/proc/self/environ --allow-write={tmp} --allow-env=HOME
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { checkPermissions, missingPermissions } from "./check_permissions.ts";
import type { PermissionSet } from "./permission_set.ts";

// In-process checks under narrowed test permissions; the subprocess tests in
// least_privilege_test.ts cover -A, unscoped grants, run, ffi, sys and net.
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "check_" }));
const root = join(base, "root");
const sibling = join(base, "sibling");
await Deno.mkdir(root);
await Deno.mkdir(sibling);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const set: PermissionSet = { read: [root], write: [], net: [], denyNet: [], env: ["FORGE_TENANT_CONFIG"] };

Deno.test({
  name: "checkPermissions() finds nothing at least privilege",
  permissions: { read: [root] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), []);
  },
});

Deno.test({
  name: "checkPermissions() finds a read of the root's parent",
  permissions: { read: [base] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), [`read "${base}"`]);
  },
});

Deno.test({
  name: "checkPermissions() finds a read of the temp dir above the root",
  permissions: { read: [dirname(base)] },
  async fn() {
    const excess = await checkPermissions(set);
    assert.ok(excess.includes(`read "${dirname(base)}"`), excess.join("; "));
  },
});

Deno.test({
  name: "checkPermissions() finds a write to a read-only root",
  permissions: { read: [root], write: [root] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), [`write "${root}"`]);
  },
});

Deno.test({
  name: "checkPermissions() finds an env variable the policy does not read",
  permissions: { read: [root], env: ["HOME"] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), ['env "HOME"']);
  },
});

Deno.test({
  name: "checkPermissions() finds a grant of a single well-known secret file, below the folders it probes",
  permissions: { read: [root, "/etc/passwd", "/proc/self/environ"] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), ['read "/etc/passwd"', 'read "/proc/self/environ"']);
    // A policy that reads such a file itself is not refused for it.
    assert.deepEqual(await checkPermissions({ ...set, read: [root, "/etc/passwd", "/proc/self/environ"] }), []);
  },
});

Deno.test({
  name: "checkPermissions() cannot see a scoped grant that covers no probe (a documented limit)",
  permissions: { read: [root, sibling] },
  async fn() {
    assert.deepEqual(await checkPermissions(set), []);
  },
});

Deno.test({
  name: "missingPermissions() lists what the set needs and the process lacks",
  permissions: { read: [root] },
  async fn() {
    assert.deepEqual(await missingPermissions(set), ['env "FORGE_TENANT_CONFIG"']);
    assert.deepEqual(await missingPermissions({ ...set, env: [] }), []);
  },
});

Deno.test({
  name:
    "checkPermissions() asks nothing but the unscoped queries about a kind the caller revokes whole (least_privilege_test.ts: an unscoped grant of it is still refused)",
  permissions: { read: [root, "/etc/passwd"] },
  async fn() {
    const querySync = Deno.permissions.querySync;
    const asked: string[] = [];
    Deno.permissions.querySync = (
      descriptor,
    ) => (asked.push(JSON.stringify(descriptor)), querySync.call(Deno.permissions, descriptor));
    try {
      const revoking = ["write", "net", "run", "ffi", "sys", "import"] as const;
      assert.deepEqual(await checkPermissions(set, { revoking }), ['read "/etc/passwd"']);
      const unscoped = asked.filter((d) => !d.includes(","));
      assert.equal(unscoped.length, 8, asked.join(" "));
      const scopedKinds = new Set(asked.filter((d) => d.includes(",")).map((d) => JSON.parse(d).name));
      assert.deepEqual([...scopedKinds].sort(), ["env", "read"], "only the kinds the set needs are probed");
      asked.length = 0;
      // Without the list every kind not granted whole is probed, as before.
      await checkPermissions(set);
      assert.ok(asked.length > 150, `${asked.length} queries`);
    } finally {
      Deno.permissions.querySync = querySync;
    }
  },
});
