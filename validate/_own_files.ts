import { basename, dirname, resolve } from "node:path";
import { nodeFs } from "../internal/node_fs.ts";

/** Where the server's own files are now, as the jail refuses them. */
export interface OwnPlaces {
  /** Real paths: each file's, or where it would be made (a missing file in an existing folder, a dangling link's every hop). */
  readonly paths: ReadonlySet<string>;
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

/**
 * Resolves where `files` are now, synchronously (two or three system calls
 * each, at every check: a link on their way may have been swapped since the
 * last). A file whose folder does not exist has no place yet.
 */
export function ownPlaces(files: Iterable<string>): OwnPlaces {
  const paths = new Set<string>();
  const names = new Set<string>();
  for (const file of files) place(file, paths, names, 0);
  return { paths, names };
}

function place(path: string, paths: Set<string>, names: Set<string>, hops: number): void {
  let at: string;
  try {
    if (nodeFs().existsSync(path)) {
      paths.add(Deno.realPathSync(path));
      return;
    }
    // Missing (or a dangling link): where it would be made is its folder's real path with its name. A folder that
    // is missing too holds no file until someone makes it (the jail makes no folder); a later check finds it then.
    // existsSync says "missing" without building an error (~12 µs each here); it throws where this process may not
    // look, and that place is unresolved.
    if (!nodeFs().existsSync(dirname(path))) return;
    at = resolve(Deno.realPathSync(dirname(path)), basename(path));
  } catch (err) {
    if (missing(err)) return;
    return unresolved(path, paths, names);
  }
  paths.add(at);
  let link: string;
  try {
    if (!Deno.lstatSync(at).isSymlink) return;
    link = Deno.readLinkSync(at);
  } catch (err) {
    if (missing(err)) return;
    return unresolved(path, paths, names);
  }
  // A dangling link: writing through it makes its target, which is then the file.
  if (hops >= MAX_HOPS) return unresolved(path, paths, names);
  place(resolve(dirname(at), link), paths, names, hops + 1);
}

function unresolved(path: string, paths: Set<string>, names: Set<string>): void {
  paths.add(path);
  names.add(basename(path));
}

function missing(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}
