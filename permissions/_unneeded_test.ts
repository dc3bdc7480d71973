import assert from "node:assert/strict";
import { definePolicy } from "../validate/policy.ts";
import { PERMISSION_KINDS, unneededKinds } from "./_unneeded.ts";
import { derivePermissions, type PermissionSet } from "./permission_set.ts";

Deno.test("unneededKinds() lists every kind for a policy that allows nothing", () => {
  assert.deepEqual(unneededKinds(derivePermissions(definePolicy({ tenantConfig: false }))), [...PERMISSION_KINDS]);
});

Deno.test("unneededKinds() keeps each kind the policy needs in part and drops the rest", () => {
  const readOnly = derivePermissions(definePolicy({ readRoots: ["/srv/data"] }));
  assert.deepEqual(unneededKinds(readOnly), ["write", "net", "run", "ffi", "sys", "import"]);
  const fetcher = derivePermissions(definePolicy({ net: { hosts: ["api.example.com"] }, tenantConfig: false }));
  // It sets NO_PROXY and no_proxy at start (docs/permissions.md), so env is needed in part; kept when it keeps the proxy.
  assert.deepEqual(unneededKinds(fetcher), ["read", "write", "run", "ffi", "sys", "import"]);
  const proxied = derivePermissions(
    definePolicy({ net: { hosts: ["api.example.com"], environmentProxy: true }, tenantConfig: false }),
  );
  assert.deepEqual(unneededKinds(proxied), ["read", "write", "env", "run", "ffi", "sys", "import"]);
  // A file the server writes is read back too (the audit trail links to its last record).
  const auditing = derivePermissions(definePolicy({ writeFiles: ["/var/a.log"], tenantConfig: false }));
  assert.deepEqual(unneededKinds(auditing), ["net", "env", "run", "ffi", "sys", "import"]);
});

Deno.test("unneededKinds() keeps run for a set that lists commands, and drops it for an empty list", () => {
  const set = derivePermissions(definePolicy({ tenantConfig: false }));
  const withRun = { ...set, run: ["/usr/bin/git"] } as PermissionSet;
  assert.ok(!unneededKinds(withRun).includes("run"));
  assert.ok(unneededKinds({ ...set, run: [] } as PermissionSet).includes("run"));
});
