// Deno checks the path a database process gives to DatabaseSync, not where it
// leads: SQLite follows a link. So whoever can write the database's folder
// could put a link at its path, to another SQLite file outside every grant,
// and the next database process would read that file under the database's
// name (and so could a hard link renamed over it). The server records the
// file's identity (device and inode, from lstat) at start; each database
// process compares the path with it before it opens and again after.

/** Which file a path named when the server started: its device and inode (`lstat`). */
export interface DatabaseIdentity {
  /** The device it is on. */
  dev: number;
  /** Its inode on that device. */
  ino: number;
}

/**
 * The identity of the file at `path`, the path itself (a link is not
 * followed); undefined when there is none yet, or Deno may not read it.
 *
 * @param path The database file (absolute).
 * @returns Its device and inode, or undefined.
 *
 * @example What the server records at start
 * ```ts ignore
 * import { databaseIdentity } from "./database_file.ts";
 *
 * const identity = databaseIdentity("/srv/shop.db"); // { dev: 2049, ino: 1837 }
 * ```
 */
export function databaseIdentity(path: string): DatabaseIdentity | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotCapable) return undefined;
    throw err;
  }
  return info.dev === null || info.ino === null ? undefined : { dev: info.dev, ino: info.ino };
}

/**
 * Why a database process must not open `path` now, in words for the
 * operator (they name paths; the model is told less): it is a link, or not a
 * plain file, or reached through a linked folder (its real path differs), or
 * another file than `identity`, the one the server started with, or gone
 * since. Undefined when it is that file (or, with no identity, a plain file
 * at its real path, or none at all: SQLite then says it cannot open it).
 *
 * @param path The database file (absolute).
 * @param identity The file the server started with, when it knew one.
 * @returns The reason, or undefined.
 *
 * @example Before and after the open
 * ```ts ignore
 * import { databaseFileProblem, databaseIdentity } from "./database_file.ts";
 *
 * const identity = databaseIdentity("/srv/shop.db");
 * if (databaseFileProblem("/srv/shop.db", identity) !== undefined) throw new Error("refused");
 * ```
 */
export function databaseFileProblem(path: string, identity?: DatabaseIdentity): string | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    return identity === undefined ? undefined : "it is gone since the server started";
  }
  if (info.isSymlink) return "it is a link (SQLite would open the file it leads to, which no grant names)";
  if (!info.isFile) return "it is not a plain file";
  const real = Deno.realPathSync(path);
  if (real !== path) return `it is reached through a linked folder (its real path is ${real}); configure the real path`;
  if (identity !== undefined && (info.dev !== identity.dev || info.ino !== identity.ino)) {
    return `it is another file than the one the server started with (device ${info.dev}, inode ${info.ino}, not ` +
      `${identity.dev}, ${identity.ino}); restart the server to serve it`;
  }
  return undefined;
}
