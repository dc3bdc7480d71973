import type { PermissionSet } from "./permission_set.ts";

/** A permission kind, as `Deno.permissions` names it (`import` included). */
export type PermissionKind = Deno.PermissionDescriptor["name"];

/** Every permission kind Deno 2.9.6 has a flag for, in flag order. */
export const PERMISSION_KINDS: readonly PermissionKind[] = [
  "read",
  "write",
  "net",
  "env",
  "run",
  "ffi",
  "sys",
  "import",
];

/**
 * The kinds a permission set does not need at all. A kind is needed exactly
 * when the set has a non-empty list under its name (`read`, `write`, `net`,
 * `env`, and `run`, `ffi`, `sys` or `import` for a set that carries such a
 * list), so a policy that grows a kind keeps it without a change here.
 */
export function unneededKinds(set: PermissionSet): PermissionKind[] {
  const lists = set as unknown as Partial<Record<PermissionKind, readonly unknown[]>>;
  return PERMISSION_KINDS.filter((kind) => {
    const list = lists[kind];
    return !Array.isArray(list) || list.length === 0;
  });
}
