import { basename, dirname, resolve } from "node:path";
import { nodeFs } from "../internal/node_fs.ts";
import { isMissingPath } from "../internal/missing_path.ts";

/** Where a server's own files are now, as {@linkcode ownFilePlaces} finds them. */
export interface OwnFilePlaces {
  /** Real paths: each file's, or where it would be made (a missing file in an existing folder, a dangling link's every hop). */
  readonly paths: ReadonlySet<string>;
  /**
   * `dev:ino` of each one that exists, when asked for: a second name of it
   * (a hard link) is the same file.
   */
  readonly ids: ReadonlySet<string>;
  /**
   * Names refused in every folder: an own file whose place this process may
   * not resolve (its folder is not granted, as least privilege leaves a
   * tenant or audit file not made yet) is refused by its name wherever it is
   * met, so a folder reached through a link cannot uncover it (fail closed).
   */
  readonly names: ReadonlySet<string>;
}

/** The most symbolic links followed from one own file that does not exist (as the kernel's limit). */
const MAX_HOPS = 40;

/** Options of {@linkcode ownFilePlaces}. */
export interface OwnFilePlacesOptions {
  /**
   * Whether to find the `dev:ino` of each own file that exists (one more
   * system call each).
   * @default {false}
   */
  ids?: boolean;
}

/**
 * Finds where a server's own files (its config, the tenant file it looks for
 * at start, its audit trail: `LoadedConfig.ownFiles`, a policy's `readFiles`
 * and `writeFiles`) are now, so that a guard can refuse them wherever a tool
 * would reach them: by real path, by name where this process may not look
 * (fail closed), and by `dev:ino` when asked. Synchronous, a few system calls
 * each; call it at every check, since a redeploy may swap a link on their way.
 * A file whose folder does not exist has no place yet (nothing can be made
 * there until the folder is). {@linkcode PathJail} uses it for the policy's
 * own files; a Manager whose tools reach files otherwise (a program run on a
 * folder, as git is) uses it before they run.
 *
 * @param files Absolute paths of the own files.
 * @param options Whether to find their `dev:ino` too.
 * @returns Their real paths, the names refused everywhere, and (when asked) their `dev:ino`.
 *
 * @example Where this process may not look, an own file is refused by its name
 * ```ts
 * import { ownFilePlaces } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * // Run without --allow-read, as this example is: the place cannot be looked up, so the name counts everywhere.
 * const places = ownFilePlaces(["/etc/forge/acme/files.json"]);
 * assert.ok(places.names.has("files.json"));
 * ```
 */
export function ownFilePlaces(files: Iterable<string>, options: OwnFilePlacesOptions = {}): OwnFilePlaces {
  const found: Found = { paths: new Set(), names: new Set(), ids: new Set(), withIds: options.ids === true };
  for (const file of files) place(file, found, 0);
  return { paths: found.paths, names: found.names, ids: found.ids };
}

interface Found {
  paths: Set<string>;
  names: Set<string>;
  ids: Set<string>;
  withIds: boolean;
}

function place(path: string, found: Found, hops: number): void {
  const { paths } = found;
  let at: string;
  try {
    if (nodeFs().existsSync(path)) {
      paths.add(Deno.realPathSync(path));
      if (found.withIds) {
        const info = Deno.statSync(path);
        found.ids.add(`${info.dev}:${info.ino}`);
      }
      return;
    }
    // Missing (or a dangling link): where it would be made is its folder's real path with its name. A folder that
    // is missing too holds no file until someone makes it (the jail makes no folder); a later check finds it then.
    // existsSync says "missing" without building an error (~12 µs each here); it throws where this process may not
    // look, and that place is unresolved.
    if (!nodeFs().existsSync(dirname(path))) return;
    at = resolve(Deno.realPathSync(dirname(path)), basename(path));
  } catch (err) {
    if (isMissingPath(err)) return;
    return unresolved(path, found);
  }
  paths.add(at);
  let link: string;
  try {
    if (!Deno.lstatSync(at).isSymlink) return;
    link = Deno.readLinkSync(at);
  } catch (err) {
    if (isMissingPath(err)) return;
    return unresolved(path, found);
  }
  // A dangling link: writing through it makes its target, which is then the file.
  if (hops >= MAX_HOPS) return unresolved(path, found);
  place(resolve(dirname(at), link), found, hops + 1);
}

function unresolved(path: string, found: Found): void {
  found.paths.add(path);
  found.names.add(basename(path));
}
