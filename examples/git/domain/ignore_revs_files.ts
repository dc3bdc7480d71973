// `blame.ignoreRevsFile` names files git blame reads, from anywhere, and git
// quotes the first line that is not a revision in its error: a repository's
// config naming an outside file would show a line of it. Unlike the pinned
// keys it is a list that a later `-c` cannot empty, so each name is checked.
import { PolicyError, quote } from "@forge/toolkit/validate";
import { assertSingleNames } from "./hard_links.ts";
import { assertNoLinkedFolder, repoPath } from "./repo_path.ts";

/**
 * Refuses a blame unless every `blame.ignoreRevsFile` a repository's config
 * names is a work-tree file git reaches without leaving it: relative (git
 * opens it from the work tree), no `~` or `%(prefix)` (git expands those),
 * outside `.git`, through no linked folder, not itself a link, and with one
 * name unless hard links are allowed. An empty name (git's "forget the files
 * so far") is fine. The refusal never quotes the name, which may be an
 * outside host path.
 *
 * @param root The work tree (real path).
 * @param repo The repository's name, for the message.
 * @param files The names, from `parseDrivers`.
 * @param allowHardLinks The config's `allow_hard_links`.
 * @throws {PolicyError} When one is not such a file (code `outside-roots`).
 *
 * @example Before a blame
 * ```ts ignore
 * await assertIgnoreRevsInside("/srv/app", "app", [".git-blame-ignore-revs"], false);
 * ```
 */
export async function assertIgnoreRevsInside(
  root: string,
  repo: string,
  files: readonly string[],
  allowHardLinks: boolean,
): Promise<void> {
  for (const file of files) {
    if (file === "") continue;
    try {
      if (file.startsWith("~") || file.startsWith("%(")) throw new PolicyError("outside-roots", "expanded by git");
      const relative = repoPath("blame.ignoreRevsFile", file);
      await assertNoLinkedFolder(root, "blame.ignoreRevsFile", relative);
      const info = await Deno.lstat(`${root}/${relative}`).catch(() => undefined);
      if (info?.isSymlink) throw new PolicyError("symlink-escape", "a link");
      if (!allowHardLinks) await assertSingleNames(root, repo, [relative]);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      throw new PolicyError(
        "outside-roots",
        `Cannot blame in repo ${quote(repo)}: its config names a blame.ignoreRevsFile that is not a file of its ` +
          "work tree, which this server does not let git read",
      );
    }
  }
}
