// What a walk of a repository's git data found in each folder, kept so the
// next walk need not read the folder again while it has not changed. A
// folder's entries (each name and the file it names) change only by
// creating, removing, renaming or linking a name in it, and each of those
// sets the folder's change time (ctime) to the present: no call, `utime`
// included, sets it to anything else. So a folder with the same device,
// inode, ctime, mtime and size holds the names it held, naming the same
// files. Two things keep that true here:
//
// - ctime is read before the folder is, and a folder is kept only when its
//   ctime is over RACY_MS older than that read: a change made later, even in
//   the same clock tick as the read, gets a ctime that differs (Deno gives
//   ctime in whole seconds; git's index has the same "racy" rule).
// - links are not kept, only their names: where a link leads is resolved on
//   every walk, since a folder on its way may change without this one.
//
// What is not looked at again is how many names a file kept here has: a
// second name made since, in another folder, brings no outside content in
// (the file's content is still this repository's) and needs write access to
// that other folder, not to this one.
//
// Who can set the clock back, or mounts a filesystem of their own making
// under the git data, is not stopped: the first is root, the second could as
// well show git other files than the walk.

/**
 * How much older than the walk a folder's ctime must be to be kept (also covers a clock that lags by as much); the
 * index-names cache keeps its verdicts by the same rule.
 */
export const RACY_MS = 10_000;
/** The most folders kept; past it, all are dropped and kept again as walks find them. */
const MAX_FOLDERS = 100_000;

/** What a walk found in one folder that was clean. */
export interface CheckedFolder {
  /** The names of the folders in it (real folders, not links). */
  readonly folders: readonly string[];
  /** The names of the symbolic links in it: where they lead is checked on every walk. */
  readonly links: readonly string[];
  /** How many entries it holds, for the walk's limit. */
  readonly entries: number;
  /** Whether each file in it was found to have one name (false: hard links were allowed, and not looked at). */
  readonly singleNames: boolean;
}

/**
 * The folders of git data that earlier walks found clean, by real path,
 * each until it changes. One per configuration of the server: what it keeps
 * does not depend on which repository a folder belongs to.
 *
 * @example Keep a folder, then find it again while it is unchanged
 * ```ts ignore
 * const cache = new GitDataCache();
 * const started = Date.now();
 * const info = await Deno.lstat("/srv/app/.git/refs");
 * cache.keep("/srv/app/.git/refs", info, started, { folders: ["heads"], links: [], entries: 1, singleNames: true });
 * cache.get("/srv/app/.git/refs", await Deno.lstat("/srv/app/.git/refs"), true);
 * ```
 */
export class GitDataCache {
  readonly #folders = new Map<string, { key: string; found: CheckedFolder }>();
  readonly #racyMs: number;

  /**
   * Makes an empty cache.
   *
   * @param racyMs How much older than the walk a folder's change time must be for it to be kept: a clock that
   * lags the filesystem's by up to that much cannot hide a change either. Tests set 0.
   */
  constructor(racyMs: number = RACY_MS) {
    this.#racyMs = racyMs;
  }

  /**
   * What a walk found in a folder, if it has not changed since.
   *
   * @param path The folder's real path.
   * @param info Its `lstat`, read before it is.
   * @param singleNames Whether files with several names are refused (a folder walked while they were allowed is no answer then).
   * @returns What the walk found, or undefined.
   */
  get(path: string, info: Deno.FileInfo, singleNames: boolean): CheckedFolder | undefined {
    const kept = this.#folders.get(path);
    if (kept === undefined || kept.key !== keyOf(info)) return undefined;
    return singleNames && !kept.found.singleNames ? undefined : kept.found;
  }

  /**
   * Keeps what a walk found clean in a folder, unless it changed too
   * recently to tell a later change from it.
   *
   * @param path The folder's real path.
   * @param info Its `lstat`, read before its entries were.
   * @param started When that `lstat` was made (`Date.now()`).
   * @param found What the walk found.
   */
  keep(path: string, info: Deno.FileInfo, started: number, found: CheckedFolder): void {
    const key = keyOf(info);
    if (key === undefined || info.ctime === null || info.ctime.getTime() > started - this.#racyMs) return;
    if (this.#folders.size >= MAX_FOLDERS) this.#folders.clear();
    this.#folders.set(path, { key, found });
  }
}

/** What must be the same for a folder to be unchanged; undefined when the platform does not tell. */
function keyOf(info: Deno.FileInfo): string | undefined {
  return info.isDirectory ? identityOf(info) : undefined;
}

/**
 * A file's identity while it is unchanged: device, inode, ctime, mtime, size and link count (any write sets its
 * ctime); undefined when the platform does not tell. Shared with the index-names cache.
 */
export function identityOf(info: Deno.FileInfo): string | undefined {
  if (info.ctime === null || info.mtime === null || info.ino === null) return undefined;
  return `${info.dev}:${info.ino}:${info.ctime.getTime()}:${info.mtime.getTime()}:${info.size}:${info.nlink}`;
}
