// git's `--raw -z` listing of a diff names every blob the diff would read,
// by object id and mode, without reading one: what the size check runs on.
import { PolicyError, quote } from "@forge/toolkit/validate";

/** One changed path of a `--raw -z` listing. */
export interface RawChange {
  /** The mode of each side (`000000` for a side that does not exist). */
  readonly modes: readonly string[];
  /** The object id of each side (all zeros for an absent side or a work-tree file). */
  readonly oids: readonly string[];
  /** The path, or the source and destination of a rename or copy. */
  readonly paths: readonly string[];
}

/**
 * Parses what `git diff-tree/diff-index/diff-files --raw -z` printed (the
 * combined `::` form of a merge too). A listing cut at the output cap is
 * refused: the files it leaves out would go unchecked.
 *
 * @param repo The repository's name, for the message.
 * @param output What git printed, and whether it was cut.
 * @returns One entry per changed path.
 * @throws {PolicyError} When the listing was cut, or is not git's raw format.
 *
 * @example A modified file and an added one
 * ```ts
 * import { parseRaw } from "./raw_changes.ts";
 * import assert from "node:assert/strict";
 *
 * const a = "a".repeat(40), b = "b".repeat(40), z = "0".repeat(40);
 * const raw = `:100644 100644 ${a} ${b} M\0x.txt\0:000000 100644 ${z} ${b} A\0y.txt\0`;
 * assert.deepEqual(parseRaw("app", { stdout: raw, cut: false })[1], {
 *   modes: ["000000", "100644"],
 *   oids: [z, b],
 *   paths: ["y.txt"],
 * });
 * ```
 */
export function parseRaw(repo: string, output: { stdout: string; cut: boolean }): RawChange[] {
  if (output.cut) throw tooManyChanges(repo);
  const fields = output.stdout.split("\0");
  const changes: RawChange[] = [];
  let i = 0;
  while (i < fields.length - 1) {
    const colons = /^:+/.exec(fields[i++]);
    const sides = (colons?.[0].length ?? 0) + 1;
    const words = fields[i - 1].slice(sides - 1).split(" ");
    const modes = words.slice(0, sides);
    const oids = words.slice(sides, 2 * sides);
    const status = words[2 * sides] ?? "";
    const valid = colons !== null && words.length === 2 * sides + 1 && modes.every((m) => /^[0-7]{6}$/.test(m)) &&
      oids.every((oid) => /^[0-9a-f]{40}([0-9a-f]{24})?$/.test(oid)) && /^[A-Z]+[0-9]*$/.test(status);
    if (!valid || i >= fields.length - 1) {
      throw new PolicyError(
        "command",
        `Cannot read the diff listing of repo ${quote(repo)}: it is not git's raw format`,
      );
    }
    // A rename or copy (only without the combined form) names its source, then its destination.
    const count = sides === 2 && /^[RC]/.test(status) ? 2 : 1;
    changes.push({ modes, oids, paths: fields.slice(i, i + count) });
    i += count;
  }
  return changes;
}

/**
 * The refusal of a diff whose listing, or the sizes of its files, would not
 * fit in one answer.
 *
 * @param repo The repository's name.
 * @returns The error to throw.
 *
 * @example
 * ```ts
 * import { tooManyChanges } from "./raw_changes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.match(tooManyChanges("app").message, /in repo "app" reads: it changes too many; name a path$/);
 * ```
 */
export function tooManyChanges(repo: string): PolicyError {
  return new PolicyError(
    "invalid-input",
    `Cannot check the sizes of the files a diff in repo ${quote(repo)} reads: it changes too many; name a path`,
  );
}
