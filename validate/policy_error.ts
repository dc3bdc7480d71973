import { ToolError } from "../internal/tool_error.ts";

/**
 * Why a guard refused: a stable code for tests, logs and metrics, beside the
 * message the model reads. A refusal of the path jail is never a
 * `Deno.errors.*` error: a missing file is `not-found`, so test
 * `err instanceof PolicyError && err.code === "not-found"`.
 *
 * Paths (`PathJail`):
 * - `invalid-input`: the caller's value is malformed (empty, too long or too
 *   deep, a NUL or invisible character, a leading `~`), or the operating
 *   system refused it for a reason the caller can act on (the file exists
 *   with `createNew`, the disk is full, the name is too long).
 * - `outside-roots`: the path leaves the allowed folders, or no folder is open
 *   for that kind of use.
 * - `symlink-escape`: the path is or passes through a symbolic link that leads
 *   outside the roots (a dangling one too), or has a link loop.
 * - `denied-by-glob`: a deny glob (`.env`, `.git/`, keys, …) refuses the path
 *   or a folder on the way to it, or it is one of the policy's own files.
 * - `not-found`: no such file or folder, or the root folder itself does not
 *   exist.
 * - `not-a-file`: a folder where a file was expected (or a file where a folder
 *   was), or not a regular file (a FIFO, a device).
 * - `too-large`: a folder too large to list, or listed past its time.
 * - `changed`: the file changed between its check and its use (try again),
 *   or its root folder was replaced since the jail was built.
 * - `no-permission`: Deno's permissions do not cover it, the operating system
 *   denied access, or the file system is read-only.
 *
 * URLs (`UrlPolicy`, `safeFetch`): `scheme`, `userinfo` (a user name or
 * password in the URL), `ip-literal` (an IP address not in canonical form, or
 * IPv4-mapped), `host`, `port` (not allowed), `address` (the host is or
 * resolves to a loopback, private or metadata address), `redirect` (too many
 * redirects, or a malformed location), `network` (the name does not resolve,
 * or no complete response in time).
 *
 * Others: `sql` (the SQL guard refused a statement, or the query failed) and
 * `command` (a program run under a `CommandPolicy` refused or failed, e.g. the
 * git example's revisions). A cap on bytes or rows is a `LimitError`, not a
 * `PolicyError`.
 */
export type PolicyErrorCode =
  | "invalid-input"
  | "outside-roots"
  | "symlink-escape"
  | "denied-by-glob"
  | "not-found"
  | "not-a-file"
  | "too-large"
  | "changed"
  | "no-permission"
  | "scheme"
  | "userinfo"
  | "ip-literal"
  | "host"
  | "port"
  | "address"
  | "redirect"
  | "network"
  | "sql"
  | "command";

/**
 * A refusal by one of the validate guards (path jail, URL policy, SQL guard).
 * It is a {@linkcode ToolError}, so the toolkit shows its message to the model
 * as an `isError` result. The message names only what the caller gave (its
 * path, its URL, a cut of its SQL), never a resolved host path.
 *
 * @example Tell a refusal from other failures
 * ```ts
 * import { PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const err = new PolicyError("outside-roots", 'Cannot read "../x": the path leaves the allowed folders');
 * assert.equal(err.code, "outside-roots");
 * assert.equal(err.name, "PolicyError");
 * ```
 */
export class PolicyError extends ToolError {
  /** Why the guard refused. */
  readonly code: PolicyErrorCode;

  /**
   * Builds the refusal.
   *
   * @param code Why the guard refused.
   * @param message What the model sees: `Cannot <action>: <state>`.
   * @param options Standard error options; `cause` stays on the server.
   */
  constructor(code: PolicyErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PolicyError";
    this.code = code;
  }
}
