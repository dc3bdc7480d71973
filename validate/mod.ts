/**
 * Layer 1 of the toolkit's containment: policy code that decides what a tool
 * may touch, before Deno's permissions (layer 2, see
 * `@forge/toolkit/permissions`) check it again.
 *
 * - {@linkcode definePolicy}: one frozen, default-deny policy that both layers read.
 * - {@linkcode PathJail}: paths inside a set of roots; no `..`, prefix or
 *   symbolic-link escapes, deny globs beat allows.
 * - {@linkcode UrlPolicy} and {@linkcode safeFetch}: schemes, hosts, ports,
 *   canonical IP literals, resolved addresses (SSRF, DNS rebinding),
 *   redirects checked at every hop, size and time caps.
 * - {@linkcode assertReadOnlySql} and {@linkcode queryReadOnly}: exactly one
 *   reading statement, parameters bound, rows read one at a time against a
 *   row and byte budget ({@linkcode readPlannedRows} runs a plan in a Worker);
 *   a guard for writes starts from {@linkcode singleSqlStatement} and refuses
 *   {@linkcode UNSAFE_SQL_FUNCTIONS} the same way.
 * - {@linkcode CommandPolicy} and {@linkcode buildArgv}: programs by absolute
 *   path, argv from typed parts (a caller's value is never an option), an
 *   allowlisted environment, a working directory inside a root, a deadline
 *   that kills the whole process group, capped output.
 * - {@linkcode capText}, {@linkcode capRows}, {@linkcode readCapped}: limits
 *   with a clear error or a marked truncation.
 * - {@linkcode quote}: a caller's value in a message, JSON-quoted and cut short.
 *
 * Refusals are {@linkcode PolicyError}s (a `ToolError`): the model sees a
 * message that names only what it asked for. A malformed policy init is a
 * {@linkcode PolicyInitError} (a `TypeError`) that names the setting, the
 * entry and the reason as fields.
 *
 * @example One policy, three guards
 * ```ts
 * import { assertReadOnlySql, definePolicy, PathJail, PolicyError, UrlPolicy } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const policy = definePolicy({ readRoots: ["/srv/data"], net: { hosts: ["api.example.com"] } });
 *
 * const jail = new PathJail(policy);
 * await assert.rejects(jail.readTextFile("../outside.txt"), PolicyError);
 *
 * const urls = new UrlPolicy(policy);
 * assert.equal(urls.check("https://api.example.com/v1").host, "api.example.com");
 * assert.throws(() => urls.check("https://169.254.169.254/latest/meta-data"), PolicyError);
 *
 * assertReadOnlySql("SELECT id, name FROM items WHERE id = ?");
 * assert.throws(() => assertReadOnlySql("ATTACH DATABASE 'x.db' AS x"), PolicyError);
 * ```
 *
 * @module
 */
export {
  type AddressClass,
  type AddressRange,
  BLOCKED_IPV4_RANGES,
  BLOCKED_IPV6_ADDRESSES,
  classifyAddress,
} from "./address.ts";
export { arg, buildArgv, type CommandArg } from "./command_args.ts";
export {
  type CommandEnd,
  CommandPolicy,
  type CommandPolicyInit,
  type CommandResult,
  type CommandRunOptions,
} from "./command_policy.ts";
export {
  assertWithinLimit,
  type CappedBytes,
  type CappedRows,
  capRows,
  capText,
  type CutText,
  cutText,
  LimitError,
  readCapped,
  type ReadCappedOptions,
  truncationMarker,
} from "./limits.ts";
export { type OwnFilePlaces, ownFilePlaces, type OwnFilePlacesOptions } from "./own_file_places.ts";
export { PathJail } from "./path_jail.ts";
export type { DescriptorAnchorCheck, PathJailOptions } from "./path_jail_options.ts";
export type { DirEntryInfo, DirListing, ListDirOptions } from "./dir_listing.ts";
export type { ReadFileOptions, ResolveReadOptions, WriteFileOptions } from "./file_options.ts";
export {
  DEFAULT_DENY,
  DEFAULT_LIMITS,
  definePolicy,
  type Limits,
  type NetPolicy,
  type NetPolicyInit,
  type Policy,
  type PolicyInit,
} from "./policy.ts";
export { PolicyError, type PolicyErrorCode } from "./policy_error.ts";
export { PolicyInitError, type PolicyInitErrorOptions, type PolicyInitSetting } from "./policy_init_error.ts";
export { quote } from "../internal/quote.ts";
export {
  planReadOnlyQuery,
  queryReadOnly,
  type ReadOnlyQueryOptions,
  type ReadOnlyQueryResult,
} from "./read_only_query.ts";
export { type PlannedRows, type ReadPlan, readPlannedRows } from "./read_planned_rows.ts";
export { safeFetch, type SafeFetchOptions, type SafeResponse } from "./safe_fetch.ts";
export { singleSqlStatement, type SingleSqlStatementOptions } from "./single_sql_statement.ts";
export { sqliteMessage } from "./sqlite_message.ts";
export {
  assertReadOnlySql,
  SCHEMA_PRAGMAS,
  type SqlGuardOptions,
  UNSAFE_SQL_FUNCTIONS,
  VALUE_PRAGMAS,
} from "./sql_guard.ts";
// The SQL lexer the guards read SQL with has its own entry point,
// @forge/toolkit/validate/sql-tokens: only a server that judges SQL itself needs it.
export { type HostLookup, UrlPolicy, type UrlPolicyOptions } from "./url_policy.ts";
export { matchWildcard } from "./wildcard.ts";
