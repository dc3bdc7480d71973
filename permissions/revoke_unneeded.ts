import { unneededKinds } from "./_unneeded.ts";
import type { PermissionSet } from "./permission_set.ts";

/**
 * Revokes, for the rest of the process's life, every permission kind that
 * `set` does not need at all: `Deno.permissions.revoke({ name })` with no
 * path, host or variable, which on Deno 2.9.6 drops every grant of that kind,
 * scoped ones included. That covers what the probe-based check cannot see —
 * say `--allow-write=/opt/other` on a read-only server: after this, a write
 * there fails with `NotCapable`. Kinds the set needs in part (read of the
 * roots, env of some names) are left as they are; Deno cannot revoke a grant
 * it cannot list.
 *
 * Run it after the over-privilege check (which refuses what its probes see,
 * and for these kinds only an unscoped grant) and before serving. Over stdio Deno never prompts, so a revoked kind stays
 * denied; start servers with `--no-prompt` all the same.
 *
 * @param set From `derivePermissions`.
 * @returns The kinds revoked, in flag order.
 *
 * @example A read-only file server keeps read and env, and drops the rest
 * ```ts
 * import { derivePermissions } from "@forge/toolkit/permissions";
 * import { revokeUnneeded } from "./revoke_unneeded.ts";
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const set = derivePermissions(definePolicy({ readRoots: ["/srv/data"] }));
 * assert.deepEqual(await revokeUnneeded(set), ["write", "net", "run", "ffi", "sys", "import"]);
 * assert.equal((await Deno.permissions.query({ name: "write", path: "/tmp" })).state, "prompt");
 * ```
 */
export function revokeUnneeded(set: PermissionSet): Promise<Deno.PermissionDescriptor["name"][]> {
  const kinds = unneededKinds(set);
  // revokeSync(): revoke() is the same call wrapped in a promise, a hop of the start for each kind.
  for (const name of kinds) Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
  return Promise.resolve(kinds);
}
