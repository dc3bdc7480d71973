import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { quote } from "../internal/quote.ts";

/** What {@linkcode fileSafety} found. */
export interface FileSafety {
  /** Why the file must not be trusted, or `undefined` when nothing checked says so. */
  readonly reason: string | undefined;
  /** Directories whose mode could not be checked because the process may not read them. */
  readonly unchecked: readonly string[];
  /**
   * The file that was checked, `dev:ino` (of the target, for a symlink):
   * what is read must be this file, or the path changed after the check.
   * `undefined` when the check refused the file.
   */
  readonly identity?: string;
  /** Whether the path is a symlink (into its folder): false, and the file read must not be one either. */
  readonly symlink?: boolean;
  /** True when the path named something else by the end of the check (a rename mid-check): look again later. */
  readonly changed?: boolean;
}

/**
 * Says why a config file must not be trusted: it (or its directory, or its
 * symlink target's directory) is writable by group or others, so another user
 * could change what the server allows; or it is a symlink whose target leaves
 * the file's directory. On a system without Unix modes (Windows) only the
 * symlink rule applies.
 *
 * Only the file needs read permission. A directory the process may not read
 * (least privilege grants the file, not its folder) is listed in `unchecked`
 * instead of failing the file: its mode is then simply not known. Without
 * read of the directory a symlink is resolved against the directory's path as
 * written, so a directory that is itself reached through a symlink makes a
 * symlinked file look like it leaves it, and it is refused (fail closed).
 */
export async function fileSafety(path: string): Promise<FileSafety> {
  const unchecked: string[] = [];
  const dir = dirname(path);
  try {
    const link = await Deno.lstat(path);
    const dirs = [dir];
    let real: string | undefined;
    if (link.isSymlink) {
      real = await Deno.realPath(path);
      const realDir = await readable(Deno.realPath(dir)) ?? resolve(dir);
      const rel = relative(realDir, real);
      if (rel === "" || isAbsolute(rel) || rel.split(sep)[0] === "..") {
        return {
          reason: `it is a symlink to ${quote(real, 256)}, which leaves its directory ${quote(realDir, 256)}`,
          unchecked,
        };
      }
      if (dirname(real) !== realDir) dirs.push(dirname(real));
    }
    const file = await Deno.stat(path);
    // What the path names now must be what was checked: the same file, or the same link resolving the same way
    // (its target is not stat'ed by its own path, which least privilege does not grant). Swapped in between — a
    // file for a link that leaves, a folder on the link's way for one that leads out — it is refused this time.
    const same = link.isSymlink
      ? identityOf(await Deno.lstat(path)) === identityOf(link) && await Deno.realPath(path) === real
      : identityOf(file) === identityOf(link);
    if (!same) return { reason: "it changed while it was checked", unchecked, changed: true };
    if (isShared(file.mode)) {
      return {
        reason: `it is writable by group or others (mode ${octal(file.mode)}); run chmod go-w on it`,
        unchecked,
      };
    }
    for (const d of dirs) {
      const info = await readable(Deno.stat(d));
      if (info === undefined) {
        unchecked.push(d);
      } else if (isShared(info.mode)) {
        const mode = octal(info.mode);
        return {
          reason: `its directory ${quote(d, 256)} is writable by group or others (mode ${mode}); run chmod go-w on it`,
          unchecked,
        };
      }
    }
    return { reason: undefined, unchecked, identity: identityOf(file), symlink: link.isSymlink };
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      return { reason: `it cannot be checked without read permission on it (grant --allow-read=${path})`, unchecked };
    }
    throw err;
  }
}

/** The value, or `undefined` when the process may not read what it asked about. */
async function readable<T>(pending: Promise<T>): Promise<T | undefined> {
  try {
    return await pending;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) return undefined;
    throw err;
  }
}

/** A file's device and inode, `dev:ino`: the same for every name of one file. */
export function identityOf(info: { dev: number | null; ino: number | null }): string {
  return `${info.dev}:${info.ino}`;
}

function isShared(mode: number | null): boolean {
  return mode !== null && (mode & 0o022) !== 0;
}

function octal(mode: number | null): string {
  return `0${((mode ?? 0) & 0o7777).toString(8)}`;
}
