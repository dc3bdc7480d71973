// The jail's operations on a descriptor walk (see _descriptor_anchor.ts):
// the folder that holds the target is reached from the root's descriptor one
// checked name at a time, and the target is used by name inside that
// folder's descriptor only. Bytes come from the descriptor actually opened;
// a write puts a name into that folder only (its content starts in the root,
// see writeAt).

import { basename, dirname, isAbsolute, join } from "node:path";
import { nodeFs } from "../internal/node_fs.ts";
import { changed } from "./_anchored.ts";
import { refusalFor } from "./_caller_path.ts";
import {
  alreadyExists,
  assertNotReadOnly,
  type CheckContext,
  described,
  existing,
  hardLinks,
  regularFile,
} from "./_checked_file.ts";
import {
  at,
  closeQuietly,
  type Identity,
  inFolder,
  kernelName,
  openChecked,
  sameIdentity,
  syncFolder,
  walkHooks,
  type What,
} from "./_descriptor_anchor.ts";
import { listIn, type ListOptions } from "./_listing.ts";
import { LimitError } from "./limits.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";
import type { DirListing } from "./dir_listing.ts";

const CHUNK = 64 * 1024;

/**
 * Where a walk starts and where it goes: the anchor, the open root, the root's real path (checked when it was
 * opened), the names from the root to the target.
 */
export interface Walk {
  anchor: string;
  root: number;
  rootPath: string;
  names: readonly string[];
}

/** Reads the regular file the walk ends at, at most `maxBytes` of it, from the descriptor opened. */
export function readAt(
  w: Walk,
  path: string,
  context: CheckContext,
  options: { maxBytes: number; truncate?: boolean; signal?: AbortSignal },
): { bytes: Uint8Array; size: number } {
  options.signal?.throwIfAborted();
  const what = { action: "read", path };
  const name = w.names.at(-1);
  if (name === undefined) throw new PolicyError("not-a-file", `Cannot read ${quote(path)}: it is not a regular file`);
  return inFolder(w.anchor, w.root, w.names.slice(0, -1), what, (dir) => {
    const target = at(w.anchor, dir, name);
    // lstat before open: a folder, FIFO or device is refused without opening it.
    const before = regularFile(target, "read", path, context);
    const { fd, size } = openChecked(target, nodeFs().constants.O_RDONLY | nodeFs().constants.O_NONBLOCK, before, what);
    try {
      if (size > options.maxBytes && !options.truncate) {
        throw new LimitError(`read ${quote(path)}`, options.maxBytes, "bytes");
      }
      const want = Math.min(size, options.maxBytes);
      const bytes = new Uint8Array(want);
      let offset = 0;
      while (offset < want) {
        options.signal?.throwIfAborted();
        const n = nodeFs().readSync(fd, bytes, offset, Math.min(CHUNK, want - offset), null);
        if (n === 0) break;
        offset += n;
      }
      return { bytes: bytes.subarray(0, offset), size };
    } finally {
      closeQuietly(fd);
    }
  });
}

/** Describes the entry the walk ends at (the root itself for no names), never following a link. */
export function statAt(w: Walk, path: string, context: CheckContext): Deno.FileInfo {
  const what = { action: "stat", path };
  const name = w.names.at(-1);
  if (name === undefined) {
    try {
      // The descriptor's own folder: stat follows the anchor to what the descriptor holds.
      return Deno.statSync(at(w.anchor, w.root));
    } catch (err) {
      refusalFor(err, what.action, path);
    }
  }
  return inFolder(w.anchor, w.root, w.names.slice(0, -1), what, (dir) => {
    return described(at(w.anchor, dir, name), path, context);
  });
}

/** Lists the folder the walk ends at: the first `limit` visible names, each described where it is. */
export function listAt(
  w: Walk,
  path: string,
  context: CheckContext,
  options: ListOptions & { realDir: string },
): DirListing {
  return inFolder(w.anchor, w.root, w.names, { action: "list", path }, (dir) => {
    return listIn(
      {
        dir: at(w.anchor, dir),
        at: (name) => at(w.anchor, dir, name),
        realDir: options.realDir,
        look(name) {
          try {
            return Deno.lstatSync(at(w.anchor, dir, name));
          } catch {
            return undefined;
          }
        },
      },
      path,
      context,
      options,
    );
  });
}

/**
 * Writes the file the walk ends at. Deno resolves the path of an open itself
 * (it reads where the descriptor's link points and opens that text), so a
 * file is never created by opening a name in the target's folder: a swap
 * there could move the create outside. The new content goes to a
 * `.forge-write-<uuid>.tmp` created in the root (whose path no caller can
 * change), checked there by identity, flushed, and then put in place by
 * rename (atomic; replaces) or link (a new file; never replaces), which Deno
 * hands to the kernel through the anchor as they are. An existing file
 * written in place is opened without truncating and checked by identity
 * first. The temporary file is removed on every path. Returns whether the
 * target was new.
 */
export function writeAt(
  w: Walk,
  path: string,
  bytes: Uint8Array,
  context: CheckContext,
  options: { createNew?: boolean; append?: boolean; atomic?: boolean; dryRun?: boolean; signal?: AbortSignal },
): { created: boolean } {
  options.signal?.throwIfAborted();
  const what = { action: "write", path };
  const name = w.names.at(-1);
  if (name === undefined) throw new PolicyError("not-a-file", `Cannot write ${quote(path)}: it is a folder`);
  return inFolder(w.anchor, w.root, w.names.slice(0, -1), what, (dir) => {
    const target = at(w.anchor, dir, name);
    const before = existing(target, path);
    if (options.createNew && before !== undefined) throw alreadyExists(path);
    const replace = options.atomic === true && !options.append;
    assertNotReadOnly(before, path, before === undefined || replace ? at(w.anchor, dir) : undefined);
    if (before !== undefined && !replace) {
      // In place, every other name of the file changes too: one may lie outside every root.
      hardLinks(before, "write", path, context);
      if (options.dryRun) return { created: false };
      const { fd } = openChecked(
        target,
        nodeFs().constants.O_WRONLY | nodeFs().constants.O_NONBLOCK |
          (options.append ? nodeFs().constants.O_APPEND : 0),
        before,
        what,
      );
      try {
        if (!options.append) nodeFs().ftruncateSync(fd, 0);
        writeAll(fd, bytes);
      } catch (err) {
        refusalFor(err, "write", path);
      } finally {
        closeQuietly(fd);
      }
      return { created: false };
    }
    if (options.dryRun) return { created: before === undefined };
    // Permission bits only: a replaced setuid or setgid file does not keep those bits.
    const mode = before === undefined ? 0o644 : (before.mode ?? 0o644) & 0o777;
    const temp = at(w.anchor, w.root, `.forge-write-${crypto.randomUUID()}.tmp`);
    const { fd, ours } = createInRoot(temp, w, what);
    try {
      writeAll(fd, bytes);
      nodeFs().fsyncSync(fd);
      nodeFs().fchmodSync(fd, mode);
      walkHooks.beforePlace?.(target);
      // A rename replaces whatever took the name meanwhile; createNew must never replace, so it links.
      if (replace && !options.createNew) nodeFs().renameSync(temp, target);
      else nodeFs().linkSync(temp, target);
      // The new name is in the target's folder (and the temporary one left the root's): flushed, or a crash could
      // leave the old file, or none, where the write said it landed.
      const synced = syncFolder(dir) && (dir === w.root || syncFolder(w.root));
      walkHooks.folderSynced?.(path, synced);
    } catch (err) {
      if ((err as { code?: string }).code === "EEXIST") {
        // Absent a moment ago: another process made it just now.
        throw options.createNew ? alreadyExists(path) : changed("write", path);
      }
      if ((err as { code?: string }).code === "EXDEV") {
        throw new PolicyError(
          "invalid-input",
          `Cannot write ${quote(path)}: its folder is on another file system than its root folder`,
        );
      }
      refusalFor(err, "write", path);
    } finally {
      closeQuietly(fd);
      removeIfOurs(temp, ours);
    }
    return { created: before === undefined };
  });
}

/**
 * Creates the temporary file in the root and checks, through the root's
 * descriptor, that it is there. Deno opens `<anchor>/<fd>/<name>` by the path
 * the kernel names for the descriptor, so that path must still be the root's
 * own: a root removed while held is named `<root> (deleted)`, a path that
 * whoever can write beside the root (a writable root inside another root)
 * can make a link out, and a moved one is named where it went. A swap between
 * that check and the create (or inside Deno's open, between its reading of
 * the root's name and the create) lands the file elsewhere, which no open
 * through Deno can prevent; the lookup through the root's descriptor then
 * misses it, and it is removed where the kernel says it is, by identity,
 * before the write is refused. A file created in the root before the root
 * moved is removed through its descriptor.
 */
function createInRoot(temp: string, w: Walk, what: What): { fd: number; ours: Identity } {
  if (kernelName(w.anchor, w.root) !== w.rootPath) throw changed(what.action, what.path);
  walkHooks.beforeCreate?.(temp);
  let fd: number;
  try {
    fd = nodeFs().openSync(
      temp,
      nodeFs().constants.O_WRONLY | nodeFs().constants.O_CREAT | nodeFs().constants.O_EXCL |
        nodeFs().constants.O_NONBLOCK,
      0o600,
    );
  } catch (err) {
    // The root was where its name says a moment ago: no longer there, it was moved or removed meanwhile, which is
    // what the refusal says (Deno's own error would speak of the path it made of the root's new name).
    if (kernelName(w.anchor, w.root) !== w.rootPath) throw changed(what.action, what.path);
    refusalFor(err, what.action, what.path);
  }
  let ours: Identity | undefined;
  let inRoot = false;
  try {
    ours = nodeFs().fstatSync(fd);
    // Looked up through the root's descriptor, which the kernel resolves: the name is the new file only when the
    // create landed in the root.
    try {
      inRoot = sameIdentity(ours, nodeFs().lstatSync(temp));
    } catch {
      inRoot = false;
    }
    if (!inRoot) {
      // Landed elsewhere: nothing is written to it, and it goes now, while the descriptor says where it is.
      removeLanded(w.anchor, fd, ours);
      throw changed(what.action, what.path);
    }
    // In the root, and the root moved (or was renamed away) just after: refused, and removed below.
    if (kernelName(w.anchor, fd) !== join(w.rootPath, basename(temp))) throw changed(what.action, what.path);
    return { fd, ours };
  } catch (err) {
    closeQuietly(fd);
    // In the root: the name inside the root's descriptor goes, while it is still that very file.
    if (inRoot && ours !== undefined) removeIfOurs(temp, ours);
    throw err;
  }
}

/** How many times the folder a temporary file landed in is looked for, when a swap moves it meanwhile. */
const LANDED_TRIES = 4;

/**
 * Removes the file `fd` holds (identified by `ours`), created outside the root
 * by a swap: its folder is opened by the path the kernel names for the file,
 * and the name in that folder's descriptor is removed only while it is that
 * very file (a file of the same name put there, or a folder swapped in, is
 * never removed). A move meanwhile is followed, a few times; a file that
 * cannot be removed is said on stderr, by the kernel's name for it.
 */
function removeLanded(anchor: string, fd: number, ours: Identity): void {
  let landed: string | undefined;
  for (let tries = 0; tries < LANDED_TRIES; tries++) {
    // No name left: nothing to remove. The link count says so, not the kernel's " (deleted)" on the path, which a
    // file renamed to such a name has too.
    if (unnamed(fd)) return;
    landed = kernelName(anchor, fd);
    if (landed === undefined || !isAbsolute(landed)) return;
    let dir: number;
    try {
      dir = nodeFs().openSync(
        dirname(landed),
        nodeFs().constants.O_RDONLY | nodeFs().constants.O_DIRECTORY | nodeFs().constants.O_NONBLOCK,
      );
    } catch {
      continue;
    }
    try {
      walkHooks.beforeLandedRemoved?.(landed);
      const there = at(anchor, dir, basename(landed));
      if (sameIdentity(nodeFs().lstatSync(there), ours)) {
        nodeFs().unlinkSync(there);
        return;
      }
    } catch {
      // Moved or gone meanwhile: the kernel's name says which.
    } finally {
      closeQuietly(dir);
    }
  }
  if (landed !== undefined && !unnamed(fd)) {
    console.error(`Cannot remove a temporary file a racing process redirected out of its root: ${quote(landed, 512)}`);
  }
}

/** Whether the file `fd` holds has no name left in any folder (or cannot be looked at). */
function unnamed(fd: number): boolean {
  try {
    return nodeFs().fstatSync(fd).nlink === 0;
  } catch {
    return true;
  }
}

/** Removes a file this call created, while that name is still that very file. */
function removeIfOurs(name: string, ours: Identity): void {
  try {
    if (sameIdentity(nodeFs().lstatSync(name), ours)) nodeFs().unlinkSync(name);
  } catch {
    // Gone already.
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length;) {
    offset += nodeFs().writeSync(fd, bytes, offset, Math.min(CHUNK, bytes.length - offset));
  }
}
