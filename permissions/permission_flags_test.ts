import assert from "node:assert/strict";
import { formatPermissionFlags, permissionFlags } from "./permission_flags.ts";
import type { PermissionSet } from "./permission_set.ts";

const full: PermissionSet = {
  read: ["/a", "/b"],
  write: ["/b"],
  net: ["*.example.com", "api.example.com"],
  denyNet: ["10.0.0.0/8", "[::1]"],
  env: ["FORGE_TENANT_CONFIG", "TOKEN"],
};

Deno.test("permissionFlags() emits one flag per non-empty list, in a fixed order", () => {
  assert.deepEqual(permissionFlags(full), [
    "--allow-read=/a,/b",
    "--allow-write=/b",
    "--allow-net=*.example.com,api.example.com",
    "--deny-net=10.0.0.0/8,[::1]",
    "--allow-env=FORGE_TENANT_CONFIG,TOKEN",
  ]);
});

Deno.test("permissionFlags() of an empty set is empty: nothing granted", () => {
  assert.deepEqual(permissionFlags({ read: [], write: [], net: [], denyNet: [], env: [] }), []);
});

Deno.test("formatPermissionFlags() quotes what a shell would expand", () => {
  assert.equal(
    formatPermissionFlags(full),
    "--allow-read=/a,/b --allow-write=/b '--allow-net=*.example.com,api.example.com' '--deny-net=10.0.0.0/8,[::1]' " +
      "--allow-env=FORGE_TENANT_CONFIG,TOKEN",
  );
  assert.equal(
    formatPermissionFlags({ read: ["/it's"], write: [], net: [], denyNet: [], env: [] }),
    `'--allow-read=/it'\\''s'`,
  );
});

Deno.test("permissionFlags() ends with --allow-run of the absolute program paths, and omits it when none", () => {
  const base: PermissionSet = { read: [], write: [], net: [], denyNet: [], env: [] };
  assert.deepEqual(permissionFlags({ ...base, run: ["/usr/bin/git", "/usr/bin/kill"] }), [
    "--allow-run=/usr/bin/git,/usr/bin/kill",
  ]);
  assert.deepEqual(permissionFlags({ ...base, run: [] }), []);
});

Deno.test("permissionFlags() refuses an entry with a comma or a NUL byte instead of splitting it into two grants", () => {
  assert.throws(
    () => permissionFlags({ ...full, run: ["/usr/bin/git", "/out/srv,/usr/bin/python3"] }),
    /^TypeError: Cannot build permission flags: --allow-run value "\/out\/srv,\/usr\/bin\/python3" contains a NUL byte or a comma$/,
  );
  assert.throws(
    () => permissionFlags({ ...full, read: ["/a\0b"] }),
    /^TypeError: Cannot build permission flags: --allow-read/,
  );
});
