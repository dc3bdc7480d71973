import { shellQuote } from "../internal/shell_quote.ts";
import { listFlag } from "./_flag_list.ts";
import type { PermissionSet } from "./permission_set.ts";

/**
 * The Deno flags for a permission set, in a fixed order: `--allow-read`,
 * `--allow-write`, `--allow-net`, `--deny-net`, `--allow-env`, `--allow-run`. Empty lists
 * give no flag, so nothing is granted for them.
 *
 * @param set From `derivePermissions`.
 * @returns The flags, one array element each.
 * @throws {TypeError} When an entry is empty or holds a comma or a NUL byte: Deno would split it into two grants.
 *
 * @example Flags of a read-only server
 * ```ts
 * import { permissionFlags } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const flags = permissionFlags({ read: ["/a", "/b"], write: [], net: [], denyNet: [], env: ["FORGE_TENANT_CONFIG"] });
 * assert.deepEqual(flags, ["--allow-read=/a,/b", "--allow-env=FORGE_TENANT_CONFIG"]);
 * ```
 */
export function permissionFlags(set: PermissionSet): string[] {
  const flags: string[] = [];
  const add = (flag: string, list: readonly string[]) => {
    if (list.length > 0) flags.push(listFlag("build permission flags", flag, list));
  };
  add("--allow-read", set.read);
  add("--allow-write", set.write);
  add("--allow-net", set.net);
  add("--deny-net", set.denyNet);
  add("--allow-env", set.env);
  add("--allow-run", set.run ?? []);
  return flags;
}

/**
 * The flags as one shell-ready line (each flag quoted when it holds a
 * character the shell would interpret): what `--print-permissions` prints.
 *
 * @param set From `derivePermissions`.
 * @returns The line, without a newline.
 *
 * @example Quote a path with a space
 * ```ts
 * import { formatPermissionFlags } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const line = formatPermissionFlags({ read: ["/srv/my data"], write: [], net: [], denyNet: [], env: [] });
 * assert.equal(line, "'--allow-read=/srv/my data'");
 * ```
 */
export function formatPermissionFlags(set: PermissionSet): string {
  return permissionFlags(set).map(shellQuote).join(" ");
}
