import { checkPermissions, missingPermissions } from "./check_permissions.ts";
import { formatPermissionFlags, permissionFlags } from "./permission_flags.ts";
import type { PermissionSet } from "./permission_set.ts";
import { revokeUnneeded } from "./revoke_unneeded.ts";
import { unneededKinds } from "./_unneeded.ts";
import { hasOption } from "../internal/option_args.ts";

/** The command-line flag that lets a server start with excess permissions, for development only. */
export const ALLOW_EXCESS_PERMISSIONS_FLAG = "--allow-excess-permissions";

/** The command-line flag that makes a server print its least-privilege flags and exit. */
export const PRINT_PERMISSIONS_FLAG = "--print-permissions";

/** The exit code of a server that refuses to serve: it holds more permissions than its policy needs, or lacks some. */
export const EXCESS_PERMISSIONS_EXIT_CODE = 2;

/** Options of {@linkcode enforceLeastPrivilege}. */
export interface LeastPrivilegeOptions {
  /**
   * The server's name, the prefix of every stderr line.
   * @default {"server"}
   */
  name?: string;
  /**
   * The command-line arguments, searched for {@linkcode ALLOW_EXCESS_PERMISSIONS_FLAG} (an option only before `--`).
   * @default {Deno.args}
   */
  args?: readonly string[];
  /**
   * Serve despite excess permissions, with a loud warning (overrides `args`).
   * @default {"--allow-excess-permissions" is in args, before any `--`}
   */
  allowExcess?: boolean;
  /**
   * Where the lines go.
   * @default {writes the line and a newline to stderr}
   */
  log?: (line: string) => void;
}

/** The verdict of {@linkcode enforceLeastPrivilege}. */
export interface LeastPrivilegeResult {
  /** Whether the server may serve; when false, exit with {@linkcode EXCESS_PERMISSIONS_EXIT_CODE}. */
  ok: boolean;
  /** The excess grants found (see `checkPermissions`). */
  excess: readonly string[];
  /** Grants the policy needs that are missing (see `missingPermissions`). */
  missing: readonly string[];
  /** The least-privilege flags. */
  flags: readonly string[];
  /** The kinds revoked because the policy needs none of them (see `revokeUnneeded`); empty when refusing or under the opt-out. */
  revoked: readonly Deno.PermissionDescriptor["name"][];
}

/**
 * The start-up check: compares the process's permissions with `set`. With
 * excess grants, or without a grant the policy needs, it writes one stderr
 * line — what is excess or missing, and the exact flags to use — and returns
 * `ok: false`; the caller exits with code 2. A missing grant refuses too: the
 * server would otherwise serve a policy it cannot keep, each use of the grant
 * failing on its own. Otherwise it revokes every kind the policy does not need
 * at all (`revokeUnneeded`), which drops every scoped grant of those kinds,
 * so for them only an unscoped grant (or `-A`) is refused and their probes
 * are not asked. With {@linkcode ALLOW_EXCESS_PERMISSIONS_FLAG} every probe is
 * asked, excess grants are served anyway, nothing is revoked, and stderr says
 * so in capitals; a missing grant is still refused.
 *
 * @param set From `derivePermissions`.
 * @param options Name, arguments, opt-out and log.
 * @returns The verdict.
 *
 * @example Wire it into a main.ts
 * ```ts
 * import { derivePermissions } from "@forge/toolkit/permissions";
 * import { enforceLeastPrivilege } from "./least_privilege.ts";
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const set = derivePermissions(definePolicy({}));
 * const lines: string[] = [];
 * const verdict = await enforceLeastPrivilege(set, { name: "demo", args: [], log: (line) => lines.push(line) });
 * // In main.ts: if (!verdict.ok) Deno.exit(EXCESS_PERMISSIONS_EXIT_CODE);
 * assert.deepEqual(verdict.flags, ["--allow-env=FORGE_TENANT_CONFIG"]);
 * ```
 */
export async function enforceLeastPrivilege(
  set: PermissionSet,
  options: LeastPrivilegeOptions = {},
): Promise<LeastPrivilegeResult> {
  const name = options.name ?? "server";
  const log = options.log ?? ((line: string) => console.error(line));
  const allowExcess = options.allowExcess ?? hasOption(options.args ?? Deno.args, ALLOW_EXCESS_PERMISSIONS_FLAG);
  const flags = permissionFlags(set);
  const shown = formatPermissionFlags(set) || "(no flags)";
  // Without the opt-out, what the set needs none of is revoked whole once the check passes: no probe of it can
  // find more than that revoke removes, so only an unscoped grant of it (a hand-written launch line) is refused.
  const excess = await checkPermissions(set, { revoking: allowExcess ? [] : unneededKinds(set) });
  const missing = await missingPermissions(set);
  const refusedExcess = excess.length > 0 && !allowExcess;
  if (refusedExcess || missing.length > 0) {
    const holds = `holds more permissions than its policy needs (${excess.join("; ")})`;
    const lacks = `lacks permissions its policy needs (${missing.join("; ")})`;
    const why = refusedExcess && missing.length > 0 ? `${holds} and ${lacks}` : refusedExcess ? holds : lacks;
    const optOut = refusedExcess ? ` (or pass ${ALLOW_EXCESS_PERMISSIONS_FLAG} while developing)` : "";
    log(`${name}: refusing to serve: the process ${why}; run with: ${shown}${optOut}`);
    return { ok: false, excess, missing, flags, revoked: [] };
  }
  if (allowExcess) {
    const what = excess.length > 0
      ? `SERVING WITH EXCESS PERMISSIONS (${excess.join("; ")})`
      : "the least-privilege check is off (no excess found now)";
    log(
      `${name}: WARNING: ${ALLOW_EXCESS_PERMISSIONS_FLAG} is set: ${what}; never use it in production, run with: ${shown}`,
    );
  }
  // The opt-out keeps what the process holds: it is for code whose policy
  // does not (yet) declare everything it uses.
  const revoked = allowExcess ? [] : await revokeUnneeded(set);
  return { ok: true, excess, missing, flags, revoked };
}
