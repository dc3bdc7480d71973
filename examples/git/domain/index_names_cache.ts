// The verdict of the index-names check, kept so that a call need not start
// git to list the names of an index listed before. git's listing depends on
// the index's bytes and the repository's config alone (the pathspecs and the
// server's settings are fixed). The index is identified as the git-data walk
// identifies a folder: the same device, inode, size, mtime, ctime and link
// count, from the `stat()` of the descriptor `assertIndexShape` opened and
// read in this call, taken before it read a byte. Any write to the file
// (git's lock and rename makes a new inode; a write in place) sets its ctime
// to the present, so the same identity is the same bytes, as long as the
// ctime kept is over RACY_MS older than the `stat()` that kept it (Deno gives
// ctime in whole seconds; git's index has the same "racy" rule). The bytes
// themselves are not hashed: the shape check reads them out of order (two
// readings, the offset table from the end), through a window.
import type { ConfigFiles } from "./config_includes.ts";
import type { ReadIndex } from "./index_shape.ts";
import { identityOf, RACY_MS } from "./git_data_cache.ts";

/** The most repositories kept; past it, all are dropped and kept again as checks find them clean. */
const MAX_ENTRIES = 1024;

/**
 * The index each repository's last check found clean, with its config, by
 * git directory: one entry per repository, each until its index or config
 * changes. Only a clean verdict is kept, never a refusal.
 *
 * @example Skip the listing of an index found clean before
 * ```ts ignore
 * const read = await assertIndexShape(repo.name, join(gitDir, "index"), shapeOptions);
 * if (!cache.clean(gitDir, read, config)) {
 *   checkNames(await listSuspectNames());
 *   cache.keep(gitDir, read, config);
 * }
 * ```
 */
export class IndexNamesCache {
  readonly #entries = new Map<string, string>();
  readonly #racyMs: number;

  /**
   * Makes an empty cache.
   *
   * @param racyMs How much older than the check an index's change time must be for it to be kept. Tests set 0.
   */
  constructor(racyMs: number = RACY_MS) {
    this.#racyMs = racyMs;
  }

  /**
   * Whether this index, with this config, is the one the last check of the
   * repository found clean; forgets that check when it is not.
   *
   * @param gitDir The git directory's real path, the key.
   * @param read What `assertIndexShape` read in this call, or undefined when there is no index.
   * @param config The config files as read for this call.
   * @returns True when the listing need not run again.
   */
  clean(gitDir: string, read: ReadIndex | undefined, config: ConfigFiles): boolean {
    const key = keyOf(read, config);
    if (key !== undefined && this.#entries.get(gitDir) === key) return true;
    this.#entries.delete(gitDir);
    return false;
  }

  /**
   * Keeps the verdict that this index, with this config, lists no name to
   * refuse, unless it changed too recently to tell a later change from it.
   *
   * @param gitDir The git directory's real path, the key.
   * @param read What `assertIndexShape` read before the listing.
   * @param config The config files as read for this call.
   */
  keep(gitDir: string, read: ReadIndex | undefined, config: ConfigFiles): void {
    const key = keyOf(read, config);
    const ctime = read?.info.ctime?.getTime();
    if (key === undefined || ctime === undefined || ctime > read!.statAt - this.#racyMs) return;
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(gitDir)) this.#entries.clear();
    this.#entries.set(gitDir, key);
  }
}

/** What must be the same for a listing to hold; undefined when there is no index or the platform does not tell. */
function keyOf(read: ReadIndex | undefined, config: ConfigFiles): string | undefined {
  const file = read?.info.isFile ? identityOf(read.info) : undefined;
  if (file === undefined) return undefined;
  return JSON.stringify([file, config.common?.text ?? null, config.worktree?.text ?? null]);
}
