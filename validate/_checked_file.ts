// Using a file the jail resolved: every step runs anchored on the file's
// folder (see _anchored.ts) and the descriptor actually opened is compared,
// by device and inode, with what lstat found under that name in that folder.
// Only then are bytes read from it or written to it. This is the path mode;
// with a descriptor anchor the jail uses _descriptor_ops.ts, which shares the
// lstat checks below.

import { nodeFs } from "../internal/node_fs.ts";
import { basename, dirname } from "node:path";
import { type Anchor, anchoredIn, changed } from "./_anchored.ts";
import { refusalFor } from "./_caller_path.ts";
import { closeQuietly, type Identity, openChecked, sameIdentity, syncFolder, walkHooks } from "./_descriptor_anchor.ts";
import { LimitError } from "./limits.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";
import { readDescriptor } from "../internal/read_descriptor.ts";

const CHUNK = 64 * 1024;

/** What every checked operation needs from the jail. */
export interface CheckContext {
  /** Whether a regular file with more than one name is served. */
  allowHardLinks: boolean;
}

/** How to read: the cap, whether to cut at it, and a signal. */
export interface CheckedReadOptions {
  maxBytes: number;
  truncate?: boolean;
  signal?: AbortSignal;
}

/** A file a write created or moved, found elsewhere afterwards: a swap redirected the call. */
export interface Stray {
  /** The path the call used, which leads to the file again whenever the swap does. */
  likely: string;
  /** The file's identity. */
  ours: Identity;
}

/** How to write: exclusive create, append, atomic replace, and a signal. */
export interface CheckedWriteOptions {
  /** Whether a file with several names may be written in place (every name then changes). */
  allowHardLinks?: boolean;
  createNew?: boolean;
  append?: boolean;
  atomic?: boolean;
  /** Check only: return before anything is created, opened for writing or renamed. */
  dryRun?: boolean;
  signal?: AbortSignal;
}

/** Reads the regular file at `real` (refusals name `path`), at most `maxBytes` of it. */
export async function readChecked(
  real: string,
  path: string,
  context: CheckContext,
  options: CheckedReadOptions,
): Promise<{ bytes: Uint8Array; size: number }> {
  options.signal?.throwIfAborted();
  const what = { action: "read", path };
  const { fd, size } = anchoredIn(dirname(real), what, (anchor) => {
    const name = anchor.at(basename(real));
    // lstat before open: opening a FIFO or device would block or stream forever. The open is
    // non-blocking too: a FIFO swapped in after the lstat must not hold the thread until a writer comes.
    const before = regularFile(name, "read", path, context);
    anchor.still();
    const opened = openChecked(name, nodeFs().constants.O_RDONLY | nodeFs().constants.O_NONBLOCK, before, what);
    try {
      anchor.still();
      // Two more looks at the name, the folder's place checked after each: a swap must redirect the
      // lstat, the open and both looks alike, each between two checks, to pass.
      for (let look = 0; look < 2; look++) {
        if (!sameIdentity(before, regularFile(name, "read", path, context))) throw changed("read", path);
        anchor.still();
      }
      return opened;
    } catch (err) {
      closeQuietly(opened.fd);
      throw err;
    }
  });
  // The descriptor is proven; reading from it no longer depends on any path.
  try {
    const { maxBytes } = options;
    if (size > maxBytes && !options.truncate) throw new LimitError(`read ${quote(path)}`, maxBytes, "bytes");
    const want = Math.min(size, maxBytes);
    const bytes = new Uint8Array(want);
    let offset = 0;
    while (offset < want) {
      options.signal?.throwIfAborted();
      const n = await readDescriptor(fd, bytes, offset, Math.min(CHUNK, want - offset));
      if (n === 0) break;
      offset += n;
    }
    return { bytes: bytes.subarray(0, offset), size };
  } finally {
    closeQuietly(fd);
  }
}

/**
 * Writes `bytes` to `real` inside one anchored step. In place, it opens
 * without truncating, checks the descriptor, and only then truncates. Atomic,
 * it writes a new `.forge-write-<uuid>.tmp` beside the target (exclusive
 * create, checked the same way), flushes it, and renames it over the target;
 * the temporary file is removed on every failure. An existing target keeps
 * its permission bits.
 */
export function writeChecked(
  real: string,
  path: string,
  bytes: Uint8Array,
  options: CheckedWriteOptions,
  strays: Stray[],
): void {
  options.signal?.throwIfAborted();
  anchoredIn(dirname(real), { action: "write", path }, (anchor) => {
    const base = basename(real);
    const name = anchor.at(base);
    const before = existing(name, path);
    if (options.createNew && before !== undefined) throw alreadyExists(path);
    // In place, an existing file's folder does not change; a new file or a replacement changes it.
    const changesFolder = before === undefined || (options.atomic === true && !options.append);
    assertNotReadOnly(before, path, changesFolder ? dirname(name) : undefined);
    if (options.atomic && !options.append) {
      if (options.dryRun) return;
      const temp = `.forge-write-${crypto.randomUUID()}.tmp`;
      replaceAtomically(base, temp, path, bytes, before, anchor, strays, options.createNew === true);
      return;
    }
    // In place, every other name of the file changes too: one may lie outside every root.
    if (before !== undefined) hardLinks(before, "write", path, { allowHardLinks: options.allowHardLinks === true });
    if (options.dryRun) return;
    // A name found absent is created exclusively: a file the open found there (one a swap sent it to, maybe outside
    // every root) would otherwise be taken for this step's own, and removed when the step is refused.
    const flags = nodeFs().constants.O_WRONLY | nodeFs().constants.O_NONBLOCK | nodeFs().constants.O_CREAT |
      (options.createNew || before === undefined ? nodeFs().constants.O_EXCL : 0) |
      (options.append ? nodeFs().constants.O_APPEND : 0);
    // Non-blocking: a FIFO swapped in after the lstat fails the open (ENXIO) instead of waiting for a reader.
    walkHooks.beforeOpen?.(name);
    let fd: number;
    try {
      fd = nodeFs().openSync(name, flags, 0o666);
    } catch (err) {
      // Absent a moment ago: another process made it, or a swap led the open to another folder.
      if ((err as { code?: string }).code === "EEXIST") {
        throw options.createNew ? alreadyExists(path) : changed("write", path);
      }
      refusalFor(err, "write", path);
    }
    let ours: Identity | undefined;
    let done = false;
    try {
      const info = nodeFs().fstatSync(fd);
      if (info.isFile()) ours = info;
      const now = existing(name, path);
      if (
        !info.isFile() || now === undefined || !sameIdentity(info, now) ||
        (before !== undefined && !sameIdentity(info, before))
      ) {
        throw changed("write", path);
      }
      anchor.still();
      if (!options.append) nodeFs().ftruncateSync(fd, 0);
      writeAll((chunk) => nodeFs().writeSync(fd, chunk), bytes);
      done = true;
    } catch (err) {
      if (err instanceof PolicyError) throw err;
      refusalFor(err, "write", path);
    } finally {
      closeQuietly(fd);
      // A file this step created for a write it then refused does not stay behind.
      if (!done && before === undefined && ours !== undefined && !removeIfOurs(name, ours)) {
        strays.push({ likely: anchor.at(base), ours });
      }
    }
  });
}

/** Describes the entry at `real` (the root itself when `isRoot`), without following a link. */
export function statChecked(real: string, path: string, isRoot: boolean, context: CheckContext): Deno.FileInfo {
  return anchoredIn(isRoot ? real : dirname(real), { action: "stat", path }, (anchor) => {
    const name = anchor.at(isRoot ? "." : basename(real));
    // Three looks with the folder's place checked after each: a swap must redirect every one alike to pass.
    const info = described(name, path, context);
    for (let look = 0; look < 2; look++) {
      anchor.still();
      if (!sameEntry(info, described(name, path, context))) throw changed("stat", path);
    }
    anchor.still();
    return info;
  });
}

export function described(name: string, path: string, context: CheckContext): Deno.FileInfo {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(name);
  } catch (err) {
    refusalFor(err, "stat", path);
  }
  if (info.isSymlink) throw changed("stat", path);
  if (info.isFile) hardLinks(info, "stat", path, context);
  return info;
}

/** Flushes the folder at `dir` (see syncFolder); false when it cannot be opened or flushed. */
function syncFolderAt(dir: string): boolean {
  let fd: number | undefined;
  try {
    fd = nodeFs().openSync(dir, nodeFs().constants.O_RDONLY | nodeFs().constants.O_DIRECTORY);
    return syncFolder(fd);
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

function replaceAtomically(
  base: string,
  tempBase: string,
  path: string,
  bytes: Uint8Array,
  before: Deno.FileInfo | undefined,
  anchor: Anchor,
  strays: Stray[],
  createNew: boolean,
): void {
  // Permission bits only: a replaced setuid or setgid file does not keep those bits.
  const mode = before === undefined ? 0o644 : (before.mode ?? 0o644) & 0o777;
  const [name, temp] = [anchor.at(base), anchor.at(tempBase)];
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(temp, { write: true, createNew: true, mode: 0o600 });
  } catch (err) {
    refusalFor(err, "write", path);
  }
  let ours: Deno.FileInfo | undefined;
  let placed = false;
  try {
    ours = file.statSync();
    const checkTemp = () => {
      const now = existing(temp, path);
      if (now === undefined || !isOurs(ours!, now)) throw changed("write", path);
      anchor.still();
    };
    checkTemp();
    writeAll((chunk) => file.writeSync(chunk), bytes);
    file.syncDataSync();
    Deno.chmodSync(temp, mode);
    checkTemp();
    walkHooks.beforePlace?.(name);
    // A rename replaces whatever took the name meanwhile; createNew must never replace, so it links.
    if (createNew) Deno.linkSync(temp, name);
    else Deno.renameSync(temp, name);
    placed = true;
    const now = existing(name, path);
    if (now === undefined || !isOurs(ours, now)) {
      // The rename was redirected through a link swapped in during the call: take the bytes back out.
      strays.push({ likely: anchor.at(base), ours });
      throw changed("write", path);
    }
    // The new name (and the temporary one's removal) is in this folder: flushed, or a crash could leave the old file,
    // or none, where the write said it landed. Opened by its real path, checked to resolve to itself just above.
    walkHooks.folderSynced?.(path, syncFolderAt(anchor.dir));
  } catch (err) {
    if (err instanceof PolicyError) throw err;
    if (err instanceof Deno.errors.AlreadyExists) throw alreadyExists(path);
    refusalFor(err, "write", path);
  } finally {
    file.close();
    // A link leaves the temporary name in place too.
    if ((!placed || createNew) && ours !== undefined && !removeIfOurs(temp, ours)) {
      strays.push({ likely: anchor.at(tempBase), ours });
    }
  }
}

/**
 * Removes files a write created or moved that a swap redirected outside their
 * folder. While the swapper keeps swapping, the path the call used leads to
 * such a file again now and then; it is removed as soon as it does, and only
 * while that name is that very file. Yields between tries so the racing
 * process runs; gives up after `budgetMs` and says so on stderr.
 */
export async function chaseStrays(strays: readonly Stray[], budgetMs = 2_000): Promise<void> {
  const end = performance.now() + budgetMs;
  const left = new Set(strays);
  while (left.size > 0 && performance.now() < end) {
    for (const stray of left) {
      try {
        if (isOurs(stray.ours, Deno.lstatSync(stray.likely))) {
          Deno.removeSync(stray.likely);
          left.delete(stray);
        }
      } catch {
        // Not there at this instant: try again.
      }
    }
    if (left.size > 0) await new Promise((resolve) => setTimeout(resolve, 0));
  }
  for (const stray of left) {
    console.error(`Cannot remove a file a racing process redirected out of its folder: ${quote(stray.likely, 512)}`);
  }
}

/** Removes the temporary file when that name is still the file this step created; says whether it did. */
function removeIfOurs(temp: string, ours: Identity): boolean {
  try {
    if (!isOurs(ours, Deno.lstatSync(temp))) return false;
    Deno.removeSync(temp);
    return true;
  } catch {
    return false;
  }
}

/** The lstat of a regular file with one name (unless hard links are allowed), or a refusal. */
export function regularFile(name: string, action: string, path: string, context: CheckContext): Deno.FileInfo {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(name);
  } catch (err) {
    refusalFor(err, action, path);
  }
  // The jail resolved every link a moment ago; a link here now means the folder changed under us.
  if (info.isSymlink) throw changed(action, path);
  if (!info.isFile) throw new PolicyError("not-a-file", `Cannot ${action} ${quote(path)}: it is not a regular file`);
  hardLinks(info, action, path, context);
  return info;
}

/** Refuses a regular file with more than one name: another name may lie outside every root. */
export function hardLinks(info: Deno.FileInfo, action: string, path: string, context: CheckContext): void {
  if (!context.allowHardLinks && info.nlink !== null && info.nlink > 1) {
    throw new PolicyError(
      "not-a-file",
      `Cannot ${action} ${quote(path)}: the file has ${info.nlink} hard links, and this server serves only ` +
        "files with one name (allow_hard_links is off)",
    );
  }
}

/**
 * Refuses to write over `before` when no one may write it (no write bit): a
 * rename replaces a file whatever its bits, and so does an open by root, so a
 * file an operator marked read-only inside a writable root was replaced. With
 * `folder`, a write that adds or replaces a name in it is refused the same
 * way when the folder has no write bit.
 */
export function assertNotReadOnly(before: Deno.FileInfo | undefined, path: string, folder?: string): void {
  if (before !== undefined) refuseReadOnly(before.mode, `Cannot write ${quote(path)}: the file`);
  // A new file or a rename changes the folder: one no one may write is refused too (root's create ignores its bits).
  if (folder === undefined) return;
  walkHooks.beforeFolderMode?.(folder);
  let mode: number | null;
  try {
    mode = Deno.statSync(folder).mode;
  } catch (err) {
    // The folder was there when the step began: gone now (removed, or renamed away with its root), it changed. Its
    // error names the host path, which no refusal shows.
    if (err instanceof Deno.errors.NotFound) throw changed("write", path);
    refusalFor(err, "write", path);
  }
  refuseReadOnly(mode, `Cannot write ${quote(path)}: its folder`);
}

/** Refuses what `mode` lets no one write, `what` saying which it is. */
function refuseReadOnly(mode: number | null, what: string): void {
  if (mode !== null && (mode & 0o222) === 0) {
    throw new PolicyError(
      "no-permission",
      `${what} is read-only (mode ${(mode & 0o777).toString(8).padStart(3, "0")})`,
    );
  }
}

/** The lstat of a name that may be a file to replace, undefined when absent; anything else is refused. */
export function existing(name: string, path: string): Deno.FileInfo | undefined {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(name);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    refusalFor(err, "write", path);
  }
  if (info.isSymlink) throw changed("write", path);
  if (!info.isFile) {
    const what = info.isDirectory ? "a folder" : "not a regular file";
    throw new PolicyError("not-a-file", `Cannot write ${quote(path)}: it is ${what}`);
  }
  return info;
}

function writeAll(write: (chunk: Uint8Array) => number, bytes: Uint8Array): void {
  for (let offset = 0; offset < bytes.length;) offset += write(bytes.subarray(offset, offset + CHUNK));
}

/** Same device, inode and type: the same entry. */
export function sameEntry(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino !== null && a.ino === b.ino && a.dev === b.dev && a.isFile === b.isFile &&
    a.isDirectory === b.isDirectory && a.isSymlink === b.isSymlink;
}

/** Whether `now` (an lstat) is the regular file `ours` identifies. */
function isOurs(ours: Identity, now: Deno.FileInfo): boolean {
  return now.isFile && sameIdentity(ours, now);
}

export function alreadyExists(path: string): PolicyError {
  return new PolicyError("invalid-input", `Cannot write ${quote(path)}: the file already exists`);
}
