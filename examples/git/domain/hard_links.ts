// Git opens work-tree files itself, by name: a file there with a second name
// (a hard link) elsewhere would hand its content, from wherever that is, to a
// diff, grep, blame or commit. The files example's rule applies: a regular
// file with more than one name is not read unless the config allows it.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { notUtf8 } from "./_undecodable.ts";

/**
 * Refuses when any of `paths` in the work tree is a regular file with more
 * than one name. A path that is gone or not a regular file passes: git reads
 * a symbolic link's own text, and a deleted file has no content to read.
 *
 * @param root The work tree (real path).
 * @param repo The repository's name, for the message.
 * @param paths Paths relative to the work tree, as git lists them.
 * @throws {PolicyError} When one has several names (code `not-a-file`).
 *
 * @example Before a blame of the work tree's file
 * ```ts ignore
 * await assertSingleNames("/srv/app", "app", ["src/main.ts"]);
 * ```
 */
export async function assertSingleNames(root: string, repo: string, paths: Iterable<string>): Promise<void> {
  for (const path of new Set(paths)) {
    // Looked up, such a name finds no file: it would pass unseen.
    if (notUtf8(path)) {
      throw new PolicyError(
        "invalid-input",
        `Cannot read ${quote(path)} in repo ${quote(repo)}: the name is not UTF-8 (or holds U+FFFD), which this ` +
          "server cannot check",
      );
    }
    const info = await Deno.lstat(join(root, path)).catch(() => undefined);
    if (info?.isFile && info.nlink !== null && info.nlink > 1) {
      throw new PolicyError(
        "not-a-file",
        `Cannot read ${quote(path)} in repo ${quote(repo)}: the file has ${info.nlink} hard links, and this ` +
          "server reads only work-tree files with one name (allow_hard_links is off)",
      );
    }
  }
}

/**
 * The paths of git's `-z` listing (`--name-only -z`, `ls-files -z`): one
 * per NUL-ended entry. A listing cut at the output cap is refused, since the
 * files it leaves out would go unchecked.
 *
 * @param repo The repository's name, for the message.
 * @param output What git printed, and whether it was cut.
 * @returns The paths.
 * @throws {PolicyError} When the listing was cut.
 *
 * @example Read a listing
 * ```ts
 * import { nulPaths } from "./hard_links.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(nulPaths("app", { stdout: "a.txt\0b c\0", cut: false }), ["a.txt", "b c"]);
 * ```
 */
export function nulPaths(repo: string, output: { stdout: string; cut: boolean }): string[] {
  if (output.cut) {
    throw new PolicyError(
      "invalid-input",
      `Cannot check the files of repo ${quote(repo)} for hard links: there are too many; name a path`,
    );
  }
  return output.stdout.split("\0").filter((path) => path !== "");
}
