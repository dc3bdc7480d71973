// git blame maps every author through the work tree's `.mailmap`, whatever
// the revision, and git 2.39's blame has no switch to stop it (log and show
// run with --no-mailmap; `mailmap.file` is pinned empty). A `.mailmap` hard-
// linked to an outside file would put that file's `Name <email>` lines in
// the answer, so the work-tree file rule applies to it before every blame.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";

/**
 * Refuses a blame when the work tree's `.mailmap` is there and is not a
 * regular file (a link, which git would not follow, a folder, a FIFO git
 * would wait on), or is a regular file with more than one name and hard
 * links are not allowed. An absent `.mailmap` passes.
 *
 * @param root The work tree (real path).
 * @param repo The repository's name, for the message.
 * @param allowHardLinks The config's `allow_hard_links`.
 * @throws {PolicyError} When it is such a file (code `not-a-file`).
 *
 * @example Before a blame
 * ```ts ignore
 * await assertPlainMailmap("/srv/app", "app", false);
 * ```
 */
export async function assertPlainMailmap(root: string, repo: string, allowHardLinks: boolean): Promise<void> {
  const info = await Deno.lstat(join(root, ".mailmap")).catch(() => undefined);
  if (info === undefined) return;
  const what = `Cannot blame in repo ${quote(repo)}: git blame maps authors through the work tree's .mailmap, and`;
  if (!info.isFile) throw new PolicyError("not-a-file", `${what} it is not a regular file`);
  if (!allowHardLinks && info.nlink !== null && info.nlink > 1) {
    throw new PolicyError(
      "not-a-file",
      `${what} it has ${info.nlink} hard links; this server reads only work-tree files with one name ` +
        "(allow_hard_links is off)",
    );
  }
}
