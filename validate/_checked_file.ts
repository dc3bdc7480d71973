// Opening a file that the jail resolved, and checking after the open that it
// is still the file that was resolved: Deno has no O_NOFOLLOW or openat, so
// this narrows the check-then-use window instead of closing it.

import { refusalFor } from "./_caller_path.ts";
import { LimitError } from "./limits.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "./_quote.ts";

const CHUNK = 64 * 1024;

/** How to read: the cap, whether to cut at it, and a signal. */
export interface CheckedReadOptions {
  maxBytes: number;
  truncate?: boolean;
  signal?: AbortSignal;
}

/** How to write: exclusive create, append, and a signal. */
export interface CheckedWriteOptions {
  createNew?: boolean;
  append?: boolean;
  signal?: AbortSignal;
}

/** Reads the regular file at `real` (refusals name `path`), at most `maxBytes` of it. */
export async function readChecked(
  real: string,
  path: string,
  options: CheckedReadOptions,
): Promise<{ bytes: Uint8Array; size: number }> {
  const { maxBytes } = options;
  // lstat before open: opening a FIFO or device would block or stream forever.
  const before = await Deno.lstat(real).catch((err) => refusalFor(err, "read", path));
  if (!before.isFile) throw new PolicyError("not-a-file", `Cannot read ${quote(path)}: it is not a regular file`);
  options.signal?.throwIfAborted();
  let file: Deno.FsFile;
  try {
    file = await Deno.open(real, { read: true });
  } catch (err) {
    refusalFor(err, "read", path);
  }
  try {
    const info = await recheck(file, real, "read", path);
    if (info.size > maxBytes && !options.truncate) throw new LimitError(`read ${quote(path)}`, maxBytes, "bytes");
    const want = Math.min(info.size, maxBytes);
    const bytes = new Uint8Array(want);
    let offset = 0;
    while (offset < want) {
      options.signal?.throwIfAborted();
      const n = await file.read(bytes.subarray(offset, Math.min(want, offset + CHUNK)));
      if (n === null) break;
      offset += n;
    }
    return { bytes: bytes.subarray(0, offset), size: info.size };
  } finally {
    file.close();
  }
}

/**
 * Writes `bytes` to `real`. It opens without truncating, re-checks, and only
 * then truncates, so a file swapped in between is never clobbered.
 */
export async function writeChecked(
  real: string,
  path: string,
  bytes: Uint8Array,
  options: CheckedWriteOptions,
): Promise<void> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(real, {
      write: true,
      create: !options.createNew,
      createNew: options.createNew === true,
      append: options.append === true,
    });
  } catch (err) {
    if (err instanceof Deno.errors.AlreadyExists) {
      throw new PolicyError("invalid-input", `Cannot write ${quote(path)}: the file already exists`, { cause: err });
    }
    refusalFor(err, "write", path);
  }
  try {
    await recheck(file, real, "write", path);
    if (!options.append) await file.truncate(0);
    for (let offset = 0; offset < bytes.length;) {
      options.signal?.throwIfAborted();
      offset += await file.write(bytes.subarray(offset, offset + CHUNK));
    }
  } finally {
    file.close();
  }
}

/** Confirms the open file is a regular file, at the same real path, with the same device and inode. */
async function recheck(file: Deno.FsFile, real: string, action: string, path: string): Promise<Deno.FileInfo> {
  let info: Deno.FileInfo;
  let again: string;
  let now: Deno.FileInfo;
  try {
    // In Deno 2.9.6 FsFile.stat() also checks read permission on the real
    // path behind the descriptor: a second, Deno-side look at what was opened.
    info = await file.stat();
    again = await Deno.realPath(real);
    now = await Deno.lstat(real);
  } catch (err) {
    refusalFor(err, action, path);
  }
  const changed = again !== real || !now.isFile || !info.isFile || info.ino !== now.ino || info.dev !== now.dev;
  if (changed) {
    throw new PolicyError("changed", `Cannot ${action} ${quote(path)}: the file changed while it was opened`);
  }
  return info;
}
