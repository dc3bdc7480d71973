// Which command-line arguments are options: those before `--`, which ends
// them. What follows it is an operand, whatever it looks like, as POSIX
// utilities and the config flag's reader (configreload) take it.

/**
 * Whether `flag` is given as an option: one of `args` before the first `--`.
 *
 * @param args The command-line arguments.
 * @param flag The option, written in full (`--print-permissions`).
 * @returns True when it stands before any `--`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hasOption } from "./option_args.ts";
 *
 * assert.equal(hasOption(["-config", "a.json", "--print-permissions"], "--print-permissions"), true);
 * assert.equal(hasOption(["--", "--print-permissions"], "--print-permissions"), false);
 * ```
 */
export function hasOption(args: readonly string[], flag: string): boolean {
  for (const arg of args) {
    if (arg === "--") return false;
    if (arg === flag) return true;
  }
  return false;
}
