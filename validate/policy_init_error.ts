/**
 * The setting of a {@linkcode PolicyInit} that {@linkcode definePolicy}
 * refused an entry of, written as its path in the init (`net.hosts`).
 */
export type PolicyInitSetting =
  | "readRoots"
  | "writeRoots"
  | "readFiles"
  | "writeFiles"
  | "deny"
  | "env"
  | "run"
  | "limits"
  | "net.schemes"
  | "net.hosts"
  | "net.privateHosts"
  | "net.environmentProxy";

/** What {@linkcode PolicyInitError} carries beside its message. */
export interface PolicyInitErrorOptions extends ErrorOptions {
  /** The setting that holds the refused entry. */
  setting: PolicyInitSetting;
  /** The entry's position in its list as given; undefined for `limits`, whose entries are named. */
  index?: number;
  /** The entry as given (for `limits`, the limit's name). */
  entry: unknown;
  /** Why it was refused, worded to follow the entry and never quoting it, e.g. `is not a canonical IPv6 literal`. */
  reason: string;
}

/**
 * A malformed entry of a policy's init, refused by {@linkcode definePolicy}:
 * which setting, which entry, and why, as fields. A caller that must not show
 * the entry (a value from the environment, say) names it its own way and adds
 * {@linkcode PolicyInitError.reason}, rather than cutting the message apart.
 * It is a `TypeError` by name as well as by class, so a log line reads as any
 * malformed argument's. A port or limit out of range is a plain `RangeError`.
 *
 * @example Name a refused host without printing it
 * ```ts
 * import { definePolicy, PolicyInitError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => definePolicy({ net: { hosts: ["api.example.com", "::1"] } }), (err) => {
 *   assert.ok(err instanceof PolicyInitError && err instanceof TypeError);
 *   assert.equal(err.setting, "net.hosts");
 *   assert.equal(err.index, 1);
 *   assert.equal(err.reason, "must be written in brackets, e.g. [::1]");
 *   assert.equal(err.message, 'Cannot define policy: host "::1" must be written in brackets, e.g. [::1]');
 *   return true;
 * });
 * ```
 */
export class PolicyInitError extends TypeError {
  /** The setting that holds the refused entry. */
  readonly setting: PolicyInitSetting;
  /** The entry's position in its list as given; undefined for `limits`. */
  readonly index: number | undefined;
  /** The entry as given. */
  readonly entry: unknown;
  /** Why it was refused, without the entry. */
  readonly reason: string;

  /**
   * Builds the refusal.
   *
   * @param message The whole sentence: `Cannot define policy: <setting> "<entry>" <reason>`.
   * @param options What was refused and why; `cause` as for any error.
   */
  constructor(message: string, options: PolicyInitErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "TypeError";
    this.setting = options.setting;
    this.index = options.index;
    this.entry = options.entry;
    this.reason = options.reason;
  }
}
