// The start-up warning for roots that do not exist: the server still serves
// (a folder may be created later), but the operator learns at once why each
// call under such a root is refused.
import type { Policy } from "../validate/policy.ts";
import { quote } from "../internal/quote.ts";
import { isMissingPath } from "../internal/missing_path.ts";

/**
 * The stderr lines for the roots of `policy` (readable and writable, each
 * once) that do not exist: a missing folder, or a link to nothing. A root the
 * process may not look at is left to the permission check.
 *
 * @param name The server's name, the prefix of each line.
 * @param policy The policy whose roots are checked.
 * @returns One warning per missing root, in the policy's order; empty when all exist.
 *
 * @example Warn about a notes folder nobody made
 * ```ts
 * import { missingRootWarnings } from "./_missing_roots.ts";
 * import { definePolicy } from "../validate/policy.ts";
 * import assert from "node:assert/strict";
 *
 * const lines = await missingRootWarnings("notes", definePolicy({}));
 * assert.deepEqual(lines, []);
 * ```
 */
export async function missingRootWarnings(name: string, policy: Policy): Promise<string[]> {
  const lines: string[] = [];
  for (const root of new Set([...policy.readRoots, ...policy.writeRoots])) {
    const missing = await Deno.stat(root).then(
      () => false,
      isMissingPath,
    );
    if (missing) {
      lines.push(
        `${name}: warning: the folder ${
          quote(root, 256)
        } does not exist; calls that use it are refused until it is created`,
      );
    }
  }
  return lines;
}
