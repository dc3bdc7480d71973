// A commit writes most of the git data through a lock file renamed over the
// old one, or a new file (objects, packs): a second name of the old file is
// left as it was. Two kinds of file git opens and writes in place instead:
// COMMIT_EDITMSG (truncated, then the message written) and the reflogs under
// logs/ (a line appended). Through a hard link or a symbolic link either write
// lands in another file, so a commit checks them whatever allow_hard_links says.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { notUtf8 } from "./_undecodable.ts";

/**
 * Refuses a commit when a file git writes in place is not a regular file
 * with one name: `COMMIT_EDITMSG` of the git directory, and every entry under
 * `logs/` of the git directory and of the common directory (each must be a
 * folder, or a regular file with one name). An absent file or folder passes:
 * git creates it.
 *
 * @param repo The repository's name, for the message.
 * @param gitDir The git directory (real path).
 * @param commonDir The common directory (real path; the git directory unless `commondir` says otherwise).
 * @throws {PolicyError} When one is a link, has several names or is not a regular file (code `not-a-file`).
 *
 * @example Before `git commit`
 * ```ts ignore
 * await assertInPlaceWrites("app", "/srv/app/.git", "/srv/app/.git");
 * ```
 */
export async function assertInPlaceWrites(repo: string, gitDir: string, commonDir: string): Promise<void> {
  const refuse: Refuse = (shown, why) =>
    new PolicyError(
      "not-a-file",
      `Cannot commit to repo ${quote(repo)}: its git data holds ${quote(shown)}, which a commit writes in place, ` +
        `and it ${why}`,
    );
  const message = await Deno.lstat(join(gitDir, "COMMIT_EDITMSG")).catch(() => undefined);
  if (message?.isDirectory) throw refuse("COMMIT_EDITMSG", "is a folder");
  if (message !== undefined) check("COMMIT_EDITMSG", message, refuse);
  for (const dir of new Set([gitDir, commonDir])) await checkTree(join(dir, "logs"), "logs", refuse);
}

/** Makes the refusal of `shown`, which `why`. */
type Refuse = (shown: string, why: string) => PolicyError;

/** Why a second name matters. */
const ELSEWHERE = ": the write would land in another file (refused whatever allow_hard_links says)";

/** Throws unless `info` is a folder, or a regular file with one name. */
function check(shown: string, info: Deno.FileInfo, refuse: Refuse): void {
  if (info.isSymlink) throw refuse(shown, `is a symbolic link${ELSEWHERE}`);
  if (info.isDirectory) return;
  if (!info.isFile) throw refuse(shown, "is not a regular file");
  if (info.nlink !== null && info.nlink > 1) throw refuse(shown, `has ${info.nlink} hard links${ELSEWHERE}`);
}

/** Checks `path` and, when it is a folder, everything below it; a path that is gone passes. */
async function checkTree(path: string, shown: string, refuse: Refuse): Promise<void> {
  const info = await Deno.lstat(path).catch(() => undefined);
  if (info === undefined) return;
  check(shown, info, refuse);
  if (!info.isDirectory) return;
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) {
    // Read back as U+FFFD, such a name finds no file to look at: refused rather than passed unseen.
    if (notUtf8(entry.name)) {
      throw refuse(
        `${shown}/${entry.name}`,
        "has a name that is not UTF-8 (or holds U+FFFD), which this server cannot check",
      );
    }
    names.push(entry.name);
  }
  await Promise.all(names.map((name) => checkTree(join(path, name), `${shown}/${name}`, refuse)));
}
