// Race-free file access on Linux through a descriptor anchor: a symbolic link
// the operator made to /proc/self/fd. `${anchor}/${fd}/${name}` makes the
// kernel look `name` up in the folder the descriptor `fd` holds, as openat()
// does, so a swap of any ancestor of that folder cannot redirect the call.
// Deno checks only the path it is given against its grants, so
// `--allow-read=<anchor>` is the one grant such calls need.
//
// node:fs hands out real descriptors but ignores O_NOFOLLOW, so every step
// into a name is: lstat it through the folder's descriptor (never a link),
// open it (O_NONBLOCK, so a FIFO swapped in cannot block), and compare the
// descriptor's device and inode with the lstat. The folder is held open, so
// only the name itself can change in between, and the compare sees that.

import type { Stats } from "node:fs";
import { nodeFs } from "../internal/node_fs.ts";
import { dirname, isAbsolute } from "node:path";
import { changed } from "./_anchored.ts";
import { refusalFor } from "./_caller_path.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";

/** What the kernel calls the folder of descriptors the anchor must point at. */
export const PROC_FDS = "/proc/self/fd";

/** A caller's action and path, for refusals. */
export interface What {
  action: string;
  path: string;
}

/** Device and inode: what names one file. */
export interface Identity {
  dev: number;
  ino: number | null;
}

/**
 * Test seams: `beforeOpen` runs just before a checked name is opened, and
 * `beforePlace` just before a written file is renamed or linked into place,
 * so tests can swap the name at that very moment.
 */
export const walkHooks: {
  beforeOpen?: (at: string) => void;
  beforePlace?: (at: string) => void;
  /** Told the folder a write adds or replaces a name in, just before its mode is looked at. */
  beforeFolderMode?: (folder: string) => void;
  /** Told the temporary file's path after the root's name was checked, before the file is created there. */
  beforeCreate?: (temp: string) => void;
  /**
   * Told where the kernel names a temporary file whose create a swap led out of the root, once its folder is held
   * and before its name there is compared with the file and removed.
   */
  beforeLandedRemoved?: (landed: string) => void;
  /** Told, for the caller's `path`, whether the folder a written file was placed in was flushed. */
  folderSynced?: (path: string, synced: boolean) => void;
  /** Told a root that did not resolve when the jail was built, just before the jail takes its real path. */
  beforeRootPinned?: (root: string) => void;
  /** Told the anchor's path after its `lstat` found a link, before the link is read. */
  beforeAnchorRead?: (anchor: string) => void;
} = {};

/** Whether `a` (a descriptor's fstat) is the entry `b` found by lstat. */
export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.ino !== null && a.ino === b.ino && a.dev === b.dev;
}

/**
 * Checks that `path` is usable as an anchor: an absolute symbolic link whose
 * target is exactly /proc/self/fd, on Linux, in a folder that no other user
 * can write (a writer could swap the link). Returns whether that folder's
 * mode could be read: Deno lets the process stat it only when it is granted.
 */
export function checkAnchorLink(path: string): { folderChecked: boolean } {
  const refuse = (why: string): never => {
    throw new Error(`Cannot use the descriptor anchor ${quote(path, 256)}: ${why}`);
  };
  if (Deno.build.os !== "linux") refuse(`it needs Linux's ${PROC_FDS}, and this is ${Deno.build.os}`);
  if (!isAbsolute(path)) refuse("it must be an absolute path");
  let link: Deno.FileInfo;
  try {
    link = Deno.lstatSync(path);
  } catch (err) {
    refuse(`it cannot be read (${(err as Error).name}); create it with: ln -s ${PROC_FDS} ${path}`);
  }
  if (!link!.isSymlink) refuse(`it is not a symbolic link; create it with: ln -s ${PROC_FDS} ${path}`);
  walkHooks.beforeAnchorRead?.(path);
  let target: string;
  try {
    target = Deno.readLinkSync(path);
  } catch (err) {
    // Replaced or removed since its lstat, by whoever can write its folder: the operator's error, said as such, and
    // not Deno's message (which names the path as Deno saw it).
    refuse(`it changed while it was checked (${(err as Error).name}); create it with: ln -s ${PROC_FDS} ${path}`);
  }
  if (target! !== PROC_FDS) refuse(`it points at ${quote(target!, 256)}, not ${PROC_FDS}`);
  let folder: Deno.FileInfo;
  try {
    folder = Deno.statSync(dirname(path));
  } catch {
    return { folderChecked: false };
  }
  if (folder.mode !== null && (folder.mode & 0o022) !== 0) {
    refuse("its folder is writable by group or others, who could swap the link");
  }
  return { folderChecked: folder.mode !== null };
}

/** The path Deno is handed for `name` inside the folder `fd` holds (the folder itself without a name). */
export function at(anchor: string, fd: number, name?: string): string {
  return name === undefined ? `${anchor}/${fd}` : `${anchor}/${fd}/${name}`;
}

/**
 * The path the kernel names for descriptor `fd` (read through the anchor),
 * which is where Deno opens a name inside it; undefined when it cannot be read.
 */
export function kernelName(anchor: string, fd: number): string | undefined {
  try {
    return Deno.readLinkSync(at(anchor, fd));
  } catch {
    return undefined;
  }
}

/**
 * Flushes a folder held as a descriptor, so that a name just renamed or
 * linked into it survives a crash as the file's content (flushed before)
 * does; false when the file system cannot (the write has happened either
 * way, so it is not undone for that).
 */
export function syncFolder(fd: number): boolean {
  try {
    nodeFs().fsyncSync(fd);
    return true;
  } catch {
    return false;
  }
}

/** Closes a descriptor; a failure to close changes nothing the caller can act on. */
export function closeQuietly(fd: number): void {
  try {
    nodeFs().closeSync(fd);
  } catch {
    // Already closed.
  }
}

/**
 * Opens the root folder at its real path and checks it is the folder first
 * seen there (`expected`); returns the descriptor and its identity.
 */
export function openRoot(real: string, expected: Identity | undefined, what: What): { fd: number; id: Identity } {
  let fd: number;
  try {
    fd = nodeFs().openSync(
      real,
      nodeFs().constants.O_RDONLY | nodeFs().constants.O_DIRECTORY | nodeFs().constants.O_NONBLOCK,
    );
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  try {
    const { dev, ino } = nodeFs().fstatSync(fd);
    if (expected !== undefined && !sameIdentity({ dev, ino }, expected)) {
      throw new PolicyError(
        "changed",
        `Cannot ${what.action} ${quote(what.path)}: its root folder was replaced since the server started`,
      );
    }
    return { fd, id: { dev, ino } };
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}

/**
 * Opens the folder `name` inside the folder `dir` holds: never a link, and
 * the descriptor must be the entry lstat found. The caller closes it.
 */
export function openDirIn(anchor: string, dir: number, name: string, what: What): number {
  const path = at(anchor, dir, name);
  let before: Stats;
  try {
    before = nodeFs().lstatSync(path);
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  // The jail resolved every link a moment ago: a link or a file here now means the name was swapped.
  if (!before.isDirectory()) throw changed(what.action, what.path);
  walkHooks.beforeOpen?.(path);
  let fd: number;
  try {
    fd = nodeFs().openSync(
      path,
      nodeFs().constants.O_RDONLY | nodeFs().constants.O_DIRECTORY | nodeFs().constants.O_NONBLOCK,
    );
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  try {
    if (!sameIdentity(nodeFs().fstatSync(fd), before)) throw changed(what.action, what.path);
    return fd;
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}

/**
 * Walks from the root descriptor through `names` (folders), holding one
 * folder open at a time, and hands the last one to `fn`; closes every
 * descriptor whatever happens.
 */
export function inFolder<T>(
  anchor: string,
  root: number,
  names: readonly string[],
  what: What,
  fn: (dir: number) => T,
): T {
  let dir = root;
  try {
    for (const name of names) {
      const next = openDirIn(anchor, dir, name, what);
      if (dir !== root) closeQuietly(dir);
      dir = next;
    }
    return fn(dir);
  } finally {
    if (dir !== root) closeQuietly(dir);
  }
}

/**
 * Checks the anchor link (see {@linkcode checkAnchorLink}) and, for every
 * root this process can open, that the anchor leads from the root's
 * descriptor to that very folder; records each root's identity in `ids`.
 */
export function checkAnchor(
  anchor: string,
  roots: readonly string[],
  ids: Map<string, Identity>,
): { folderChecked: boolean; rootsChecked: number } {
  const { folderChecked } = checkAnchorLink(anchor);
  let rootsChecked = 0;
  for (const root of roots) {
    let real: string;
    try {
      real = Deno.realPathSync(root);
    } catch {
      // A root this process cannot resolve is refused on use, with its own message.
      continue;
    }
    try {
      withRoot(anchor, real, ids, { action: "open", path: root }, () => rootsChecked++);
    } catch (err) {
      if (err instanceof PolicyError) continue;
      throw new Error(
        `Cannot use the descriptor anchor ${quote(anchor, 256)}: through it, the process's descriptor of ` +
          `${quote(root, 256)} does not lead to that folder (grant --allow-read=${anchor})`,
        { cause: err },
      );
    }
  }
  return { folderChecked, rootsChecked };
}

/**
 * Opens the root (see {@linkcode openRoot}; its identity is recorded in
 * `ids` on first use), checks that the anchor still leads from its
 * descriptor to it, runs `fn`, and closes the descriptor whatever happens.
 * The per-call check means a link replaced since the start fails closed:
 * whatever it leads to now is not the root's device and inode.
 */
export function withRoot<T>(
  anchor: string,
  real: string,
  ids: Map<string, Identity>,
  what: What,
  fn: (root: number) => T,
): T {
  const { fd, id } = openRoot(real, ids.get(real), what);
  if (!ids.has(real)) ids.set(real, id);
  try {
    let through: Deno.FileInfo | undefined;
    try {
      through = Deno.statSync(at(anchor, fd));
    } catch {
      through = undefined;
    }
    if (through === undefined || !sameIdentity(through, id)) {
      throw new Error(
        `Cannot use the descriptor anchor ${quote(anchor, 256)}: it no longer leads to this process's descriptors`,
      );
    }
    return fn(fd);
  } finally {
    closeQuietly(fd);
  }
}

/** Opens a name lstat just described, and refuses unless the descriptor is that very entry; returns it and its size. */
export function openChecked(target: string, flags: number, before: Identity, what: What): { fd: number; size: number } {
  walkHooks.beforeOpen?.(target);
  let fd: number;
  try {
    fd = nodeFs().openSync(target, flags);
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  try {
    const info = nodeFs().fstatSync(fd);
    if (!info.isFile() || !sameIdentity(info, before)) throw changed(what.action, what.path);
    return { fd, size: info.size };
  } catch (err) {
    closeQuietly(fd);
    throw err;
  }
}
