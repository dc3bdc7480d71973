import { ToolError } from "../internal/tool_error.ts";

/**
 * Why a guard refused: a stable code for tests, logs and metrics, beside the
 * message the model reads.
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
