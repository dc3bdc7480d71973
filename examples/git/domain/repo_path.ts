import { posix } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";
import { hasControl } from "./_has_control.ts";
import { notUtf8 } from "./_undecodable.ts";

const MAX_PATH = 4096;

/**
 * Checks a caller's path inside a repository and returns it relative to the
 * work tree, normalised: relative only, no `..` that leaves the tree, nothing
 * inside `.git`, no NUL or control characters. Git gets it after `--` with
 * literal pathspecs, so `*` or `:(exclude)` mean nothing special.
 *
 * @param name The argument's name, for the message.
 * @param path The caller's path.
 * @returns The normalised relative path (`.` for the whole tree).
 * @throws {PolicyError} When the path is refused.
 */
export function repoPath(name: string, path: string): string {
  const refuse = (why: string) => new PolicyError("outside-roots", `Cannot use ${name} ${quote(path)}: ${why}`);
  if (typeof path !== "string" || path === "" || path.length > MAX_PATH) {
    throw new PolicyError("invalid-input", `Cannot use ${name}: it must be a path of 1 to ${MAX_PATH} characters`);
  }
  if (hasControl(path)) throw refuse("it holds a control character");
  if (path.startsWith("/")) throw refuse("it must be relative to the repository's work tree");
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal === ".." || normal.startsWith("../")) throw refuse("it leaves the repository's work tree");
  if (normal.split("/").some((part) => part.toLowerCase() === ".git")) {
    throw refuse("the repository's .git folder is not served");
  }
  return normal === "" ? "." : normal;
}

/**
 * Refuses a path whose folders (not the last part) include a symbolic link:
 * git itself refuses pathspecs beyond a link, and this check does not rely
 * on that. A part that does not exist (a deleted file) ends the walk.
 *
 * @param root The work tree (real path).
 * @param name The argument's name, for the message.
 * @param relative From {@linkcode repoPath}.
 * @throws {PolicyError} When a folder on the way is a symbolic link.
 */
export async function assertNoLinkedFolder(root: string, name: string, relative: string): Promise<void> {
  // Looked up, such a name finds no folder: it would pass unseen.
  if (notUtf8(relative)) {
    throw new PolicyError("invalid-input", `Cannot use ${name} ${quote(relative)}: it is not UTF-8 (or holds U+FFFD)`);
  }
  const parts = relative === "." ? [] : relative.split("/");
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = `${at}/${part}`;
    const info = await Deno.lstat(at).catch(() => undefined);
    if (info === undefined) return;
    if (info.isSymlink) {
      throw new PolicyError("symlink-escape", `Cannot use ${name} ${quote(relative)}: it goes through a symbolic link`);
    }
  }
}
