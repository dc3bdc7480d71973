/**
 * Layer 2 of the toolkit's containment: Deno's own permissions, scoped to
 * exactly what the policy allows, so that a bug in the policy code
 * (`@forge/toolkit/validate`, layer 1) is still stopped by Deno.
 *
 * - {@linkcode derivePermissions} turns a policy into a {@linkcode PermissionSet};
 *   {@linkcode permissionFlags} and {@linkcode formatPermissionFlags} turn that
 *   into `--allow-read=…`, `--allow-write=…`, `--allow-net=…`, `--deny-net=…`,
 *   `--allow-env=…` (what `--print-permissions` prints).
 * - `run()` checks at start what the process holds against the set and
 *   refuses to serve (exit code {@linkcode EXCESS_PERMISSIONS_EXIT_CODE}, one
 *   stderr line with the flags to use) unless
 *   {@linkcode ALLOW_EXCESS_PERMISSIONS_FLAG} is given, then drops every kind
 *   the policy needs none of; that check is no export of its own.
 *
 * @example From policy to flags
 * ```ts
 * import { derivePermissions, permissionFlags } from "@forge/toolkit/permissions";
 * import { definePolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const policy = definePolicy({
 *   readRoots: ["/srv/data"],
 *   readFiles: ["/etc/forge/files.json"],
 *   net: { hosts: ["api.example.com"] },
 *   env: ["API_TOKEN"],
 * });
 * const flags = permissionFlags(derivePermissions(policy));
 * assert.equal(flags[0], "--allow-read=/etc/forge/files.json,/srv/data");
 * assert.equal(flags[1], "--allow-net=api.example.com");
 * assert.ok(flags[2].startsWith("--deny-net=0.0.0.0/8,10.0.0.0/8,"));
 * // NO_PROXY and no_proxy: run() sets them at start so that fetch ignores a proxy the environment names.
 * assert.equal(flags[3], "--allow-env=API_TOKEN,FORGE_TENANT_CONFIG,NO_PROXY,no_proxy");
 * ```
 *
 * @module
 */
export {
  ALLOW_EXCESS_PERMISSIONS_FLAG,
  EXCESS_PERMISSIONS_EXIT_CODE,
  PRINT_PERMISSIONS_FLAG,
} from "./least_privilege.ts";
export { formatPermissionFlags, permissionFlags } from "./permission_flags.ts";
export { derivePermissions, type PermissionSet } from "./permission_set.ts";
export { fileGrantProblems } from "./file_grants.ts";
export { compileArgs, type CompileOptions } from "./compile_args.ts";
export { compileServer, type CompileServerOptions, type CompileServerResult } from "./compile_server.ts";
export { type BundleArgs, bundleArgs, type BundleOptions } from "./bundle_args.ts";
export { bundleServer, type BundleServerOptions, type BundleServerResult } from "./bundle_server.ts";
export { printedPermissions, type PrintedPermissionsOptions } from "./printed_permissions.ts";
export { RUNTIME_FLAGS } from "./runtime_flags.ts";
export { shellQuote } from "../internal/shell_quote.ts";
