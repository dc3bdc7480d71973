import { dirname, isAbsolute, relative, sep } from "node:path";
import { quote } from "./_quote.ts";

/**
 * Says why a config file must not be trusted, or `undefined` when it may be:
 * it (or its directory, or its symlink target's directory) is writable by
 * group or others, so another user could change what the server allows; or it
 * is a symlink whose target leaves the file's directory. On a system without
 * Unix modes (Windows) only the symlink rule applies.
 *
 * Checking the directory needs read permission on it; without that the file
 * is refused too (fail closed), with the flag to grant.
 */
export async function unsafeReason(path: string): Promise<string | undefined> {
  const dir = dirname(path);
  try {
    const link = await Deno.lstat(path);
    const dirs = [dir];
    if (link.isSymlink) {
      const [real, realDir] = await Promise.all([Deno.realPath(path), Deno.realPath(dir)]);
      const rel = relative(realDir, real);
      if (rel === "" || isAbsolute(rel) || rel.split(sep)[0] === "..") {
        return `it is a symlink to ${quote(real, 256)}, which leaves its directory ${quote(realDir, 256)}`;
      }
      if (dirname(real) !== realDir) dirs.push(dirname(real));
    }
    const file = await Deno.stat(path);
    if (isShared(file.mode)) {
      return `it is writable by group or others (mode ${octal(file.mode)}); run chmod go-w on it`;
    }
    for (const d of dirs) {
      const info = await Deno.stat(d);
      if (isShared(info.mode)) {
        return `its directory ${quote(d, 256)} is writable by group or others (mode ${
          octal(info.mode)
        }); run chmod go-w on it`;
      }
    }
    return undefined;
  } catch (err) {
    if (err instanceof Deno.errors.NotCapable || err instanceof Deno.errors.PermissionDenied) {
      return `its directory ${
        quote(dir, 256)
      } cannot be checked without read permission on it (grant --allow-read=${dir})`;
    }
    throw err;
  }
}

function isShared(mode: number | null): boolean {
  return mode !== null && (mode & 0o022) !== 0;
}

function octal(mode: number | null): string {
  return `0${((mode ?? 0) & 0o7777).toString(8)}`;
}
