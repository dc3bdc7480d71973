// A commit holds the named paths as the work tree has them, and nothing else.
// Two things in a repository's index make git do otherwise, and neither shows
// in git_status or git_diff. The skip-worktree bit (a sparse checkout's) has
// `git add` of a folder pass over the file that carries it, silently. And the
// cache tree (the index's TREE extension) names a folder's tree by an id git
// never checks: a partial commit takes it for every folder it did not touch,
// so an id pointing at another tree in the object store put its files into
// the commit. The first is refused before anything is staged; the second is
// found after the commit, which is then undone.
import { arg, type CommandArg, PolicyError, quote } from "@forge/toolkit/validate";

/** The most paths named in a refusal: the rest are counted. */
const SHOWN = 5;

/**
 * The entries of an `ls-files -z -t` listing whose index entry carries the
 * skip-worktree bit (tag `S`).
 *
 * @param tagged The entries git printed: `<tag> <path>`.
 * @returns Their paths.
 *
 * @example Tags of a listing
 * ```ts
 * import { skipWorktreePaths } from "./commit_scope.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(skipWorktreePaths(["H d/y", "S d/x"]), ["d/x"]);
 * ```
 */
export function skipWorktreePaths(tagged: readonly string[]): string[] {
  return tagged.filter((entry) => entry.startsWith("S ")).map((entry) => entry.slice(2));
}

/**
 * Refuses a commit whose paths hold an index entry with the skip-worktree
 * bit: `git add` of its folder leaves the file's changes out without a word,
 * and `git add` of the file itself refuses it.
 *
 * @param repo The repository's name, for the message.
 * @param skipped From {@linkcode skipWorktreePaths}.
 * @throws {PolicyError} When there is one (code `invalid-input`).
 *
 * @example Nothing to refuse
 * ```ts
 * import { assertNoSkipWorktree } from "./commit_scope.ts";
 *
 * assertNoSkipWorktree("w", []);
 * ```
 */
export function assertNoSkipWorktree(repo: string, skipped: readonly string[]): void {
  if (skipped.length === 0) return;
  throw new PolicyError(
    "invalid-input",
    `Cannot commit in repo ${quote(repo)}: its index marks ${listed(skipped)} skip-worktree (a sparse checkout's), ` +
      "so git would leave the changes there out of the commit; name other paths, or clear the bit " +
      "(git update-index --no-skip-worktree)",
  );
}

/**
 * The arguments of the `git diff-tree` that lists what commit `head` changed
 * against its parent (everything, for a root commit) outside the named
 * paths: every named path is excluded. Its pathspecs carry their magic, so
 * the run needs `pathspecMagic`.
 *
 * @param head The commit made.
 * @param paths The named paths, relative to the work tree.
 * @returns The subcommand and its arguments.
 *
 * @example A commit of one file
 * ```ts
 * import { outsideNamedArgs } from "./commit_scope.ts";
 * import { buildArgv } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * const argv = buildArgv(outsideNamedArgs("1".repeat(40), ["a.txt"]));
 * assert.deepEqual(argv.slice(-2), ["--", ":(exclude,literal)a.txt"]);
 * ```
 */
export function outsideNamedArgs(head: string, paths: readonly string[]): CommandArg[] {
  return [
    arg.word("diff-tree"),
    arg.flag("-r"),
    arg.flag("-z"),
    arg.flag("--name-only"),
    arg.flag("--no-renames"),
    arg.flag("--no-commit-id"),
    arg.flag("--root"),
    arg.value("commit", head),
    arg.operands("paths", paths.map((path) => `:(exclude,literal)${path}`)),
  ];
}

/**
 * The refusal of a commit that changed paths it was not given, once it has
 * been undone.
 *
 * @param repo The repository's name.
 * @param outside The paths from {@linkcode outsideNamedArgs}' run.
 * @returns The error (code `no-permission`).
 *
 * @example The message
 * ```ts
 * import { committedOutside } from "./commit_scope.ts";
 * import assert from "node:assert/strict";
 *
 * assert.match(committedOutside("w", ["other/f"]).message, /other\/f/);
 * ```
 */
export function committedOutside(repo: string, outside: readonly string[]): PolicyError {
  return new PolicyError(
    "no-permission",
    `Cannot commit in repo ${quote(repo)}: git also committed ${listed(outside)}, which were not named: the ` +
      "repository's index (its cached trees, the TREE extension) names content its entries do not hold. The " +
      "commit was undone and the named paths stay staged; rebuild the index's cached trees before committing here",
  );
}

/**
 * Refuses a commit while HEAD leads (through symbolic refs, as
 * `git symbolic-ref HEAD` resolves it) to a ref that is not a branch: a tag,
 * a remote-tracking ref or any other, which the commit would move. A
 * detached HEAD (no symbolic ref) moves only itself.
 *
 * @param repo The repository's name, for the message.
 * @param ref What `git symbolic-ref -q HEAD` printed, trimmed (empty: detached).
 * @throws {PolicyError} When it is not under `refs/heads/` (code `no-permission`).
 *
 * @example A branch passes
 * ```ts
 * import { assertCommitsToBranch } from "./commit_scope.ts";
 *
 * assertCommitsToBranch("w", "refs/heads/main");
 * ```
 */
export function assertCommitsToBranch(repo: string, ref: string): void {
  if (ref === "" || ref.startsWith("refs/heads/")) return;
  throw new PolicyError(
    "no-permission",
    `Cannot commit in repo ${quote(repo)}: its HEAD leads to ${quote(ref)}, not a branch (refs/heads/…), and a ` +
      "commit would move that ref",
  );
}

/** Up to SHOWN paths quoted, and how many more. */
function listed(paths: readonly string[]): string {
  const shown = paths.slice(0, SHOWN).map((path) => quote(path)).join(", ");
  return paths.length > SHOWN ? `${shown} and ${paths.length - SHOWN} more` : shown;
}
