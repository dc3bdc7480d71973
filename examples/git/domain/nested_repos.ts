// `git add` of a folder that holds a repository of its own (a `.git` folder,
// or a `.git` file naming any git directory on the host) stages a gitlink: the
// commit id that repository's HEAD names, read from wherever it is. This
// server commits files only, so such a path is refused before anything is
// staged.
import { PolicyError, quote } from "@forge/toolkit/validate";

/** git's file mode of a gitlink (a submodule's commit). */
const GITLINK = "160000";

/**
 * The paths among git's listings that are repositories of their own: a
 * tracked gitlink (`ls-files -z --stage`, mode 160000) or an untracked
 * nested repository (`ls-files -z --others`, which lists one as its folder
 * with a trailing `/` instead of its files).
 *
 * @param staged The entries `ls-files -z --stage` printed: `<mode> <id> <stage>\t<path>`.
 * @param others The entries `ls-files -z --others` printed: one path each.
 * @returns The paths, without a trailing `/`.
 *
 * @example Read both listings
 * ```ts
 * import { nestedRepos } from "./nested_repos.ts";
 * import assert from "node:assert/strict";
 *
 * const staged = [
 *   "100644 587be6b4c3f93f93c489c0111bba5596147a26cb 0\ta.txt",
 *   "160000 ce8ae6a522f30fd3686d2a9d5d376bb3401c02a1 0\tlib",
 * ];
 * assert.deepEqual(nestedRepos(staged, ["notes.txt", "sub/"]), ["lib", "sub"]);
 * ```
 */
export function nestedRepos(staged: readonly string[], others: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of staged) {
    const tab = entry.indexOf("\t");
    if (tab > 0 && entry.startsWith(`${GITLINK} `)) found.push(entry.slice(tab + 1));
  }
  for (const path of others) if (path.endsWith("/")) found.push(path.slice(0, -1));
  return found;
}

/**
 * The paths of an `ls-files -z --stage` listing.
 *
 * @param staged The entries git printed.
 * @returns The paths.
 *
 * @example Paths of a staged listing
 * ```ts
 * import { stagedPaths } from "./nested_repos.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(stagedPaths(["100644 587be6b4c3f93f93c489c0111bba5596147a26cb 0\ta b.txt"]), ["a b.txt"]);
 * ```
 */
export function stagedPaths(staged: readonly string[]): string[] {
  return staged.filter((entry) => entry.includes("\t")).map((entry) => entry.slice(entry.indexOf("\t") + 1));
}

/**
 * Refuses a commit whose paths hold a repository of its own.
 *
 * @param repo The repository's name, for the message.
 * @param nested From {@linkcode nestedRepos}.
 * @throws {PolicyError} When there is one (code `no-permission`).
 *
 * @example Before `git add`
 * ```ts ignore
 * assertNoNestedRepos("app", nestedRepos(staged, others));
 * ```
 */
export function assertNoNestedRepos(repo: string, nested: readonly string[]): void {
  if (nested.length === 0) return;
  throw new PolicyError(
    "no-permission",
    `Cannot commit ${quote(nested[0])} in repo ${quote(repo)}: it is a git repository of its own (a submodule), ` +
      "and this server commits files only",
  );
}
