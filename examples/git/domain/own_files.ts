// The server's own files (its config, the tenant file looked for at start, its
// audit trail) may lie in a repository it serves. git opens work-tree files by
// name, outside the path jail that keeps a jail-built server off them, so the
// paths git would read are checked against them before it runs.
import { basename, join } from "node:path";
import { ownFilePlaces, PolicyError, quote } from "@forge/toolkit/validate";

/**
 * Refuses when any of `paths` in the work tree is one of the server's own
 * files: at the real path the file has now, or (an existing regular file) the
 * same file by device and inode, which a second name (a hard link) or a
 * case-insensitive spelling shares. Where the own files are is looked up at
 * each call: a redeploy may move them or swap a link on their way. One this
 * process may not look up is refused by its name in every folder (fail
 * closed), as the path jail does. A symbolic link to one passes: git reads a
 * link's own text, never its target.
 *
 * @param root The work tree (real path).
 * @param repo The repository's name, for the message.
 * @param action What git would do with them, for the message (`commit`, `read`).
 * @param paths Paths relative to the work tree, as git lists them.
 * @param ownFiles Absolute paths of the server's own files.
 * @throws {PolicyError} When one is an own file (code `denied-by-glob`, in the path jail's words).
 *
 * @example Before a commit of `git.json`
 * ```ts ignore
 * await assertNotOwnFiles("/srv/app", "app", "commit", ["git.json"], ["/srv/app/git.json"]);
 * // PolicyError: Cannot commit "git.json" in repo "app": the policy denies this path
 * ```
 */
export async function assertNotOwnFiles(
  root: string,
  repo: string,
  action: string,
  paths: Iterable<string>,
  ownFiles: readonly string[],
): Promise<void> {
  if (ownFiles.length === 0) return;
  const own = ownFilePlaces(ownFiles, { ids: true });
  for (const path of new Set(paths)) {
    const at = join(root, path);
    let same = own.paths.has(at) || own.names.has(basename(path));
    if (!same && own.ids.size > 0) {
      const info = await Deno.lstat(at).catch(() => undefined);
      same = info?.isFile === true && own.ids.has(`${info.dev}:${info.ino}`);
    }
    // In the jail's words: the model learns nothing more of the file.
    if (same) {
      throw new PolicyError(
        "denied-by-glob",
        `Cannot ${action} ${quote(path)} in repo ${quote(repo)}: the policy denies this path`,
      );
    }
  }
}
