import { nodeFs } from "../internal/node_fs.ts";
import { concatBytes } from "../internal/concat_bytes.ts";
import { readDescriptor } from "../internal/read_descriptor.ts";
import { identityOf } from "./_file_safety.ts";
import type { Stats } from "node:fs";

/**
 * How recent a file's modification time may be, in ms, before a read of it is
 * not trusted alone: a later write within the file system's timestamp
 * granularity would not move its times.
 */
export const RACY_MS = 2_000;

/** What `stat` says about a file: enough to notice most changes cheaply. */
export interface Stamp {
  /** Inode, size and times of the path and, for a symlink, of its target. */
  readonly key: string;
  /** The target's modification time in ms, when the platform reports it. */
  readonly mtime: number | null;
}

/** Stats `path` without reading it; `undefined` when it does not exist. */
export async function stamp(path: string): Promise<Stamp | undefined> {
  try {
    const link = await Deno.lstat(path);
    const file = link.isSymlink ? await Deno.stat(path) : link;
    const key = [link, file].map((i) => `${i.dev}:${i.ino}:${i.size}:${i.mtime?.getTime()}:${i.ctime?.getTime()}`);
    return { key: key.join("|"), mtime: file.mtime?.getTime() ?? null };
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/**
 * Reads a regular file, refusing one larger than `maxBytes` while reading (so
 * a file that grows after `stat` cannot exhaust memory). The open does not
 * block: a FIFO put at the path (even between a caller's `stat` and this
 * read) opens at once and is refused by the descriptor's own `fstat`, where a
 * blocking open would wait for a writer, and hold every later reload behind it.
 *
 * With `checked` (from the safety check), the opened file must be the one
 * checked (`dev:ino`), and a path checked as a file is opened without
 * following a symlink: a path swapped after the check (a checked file renamed
 * away, a symlink that leaves its folder put in its place) is refused, never
 * read.
 *
 * The file is read from the descriptor: a write during the read (the file
 * rewritten in place or truncated) is refused, never returned as a mix of two
 * versions. A write moves the file's size or times; one that lands within the
 * timestamp granularity of the file's previous write does not, so a file
 * modified less than {@linkcode RACY_MS} before the read is read twice, and
 * returned only when both reads agree.
 *
 * @param afterChunk Called after each 64 KiB read (tests land a write there).
 * @throws {RangeError} When the file is larger than `maxBytes`.
 * @throws {TypeError} When the path is not a regular file.
 * @throws {Deno.errors.NotFound} When nothing is at the path.
 * @throws {ChangedError} When the opened file is not the one checked, or it
 *   changed while it was read.
 */
export async function readBounded(
  path: string,
  maxBytes: number,
  checked?: { identity?: string; symlink?: boolean },
  afterChunk?: () => void | Promise<void>,
): Promise<Uint8Array<ArrayBuffer>> {
  const { O_RDONLY, O_NONBLOCK, O_NOFOLLOW } = nodeFs().constants;
  const noFollow = checked?.identity !== undefined && checked.symlink === false ? O_NOFOLLOW ?? 0 : 0;
  let fd: number;
  try {
    fd = nodeFs().openSync(path, O_RDONLY | O_NONBLOCK | noFollow);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === "ENOENT") throw new Deno.errors.NotFound("Cannot read config: it does not exist", { cause: err });
    // O_NOFOLLOW met a symlink where the check saw a file.
    if (code === "ELOOP" && noFollow !== 0) throw new ChangedError();
    throw err;
  }
  try {
    const info = nodeFs().fstatSync(fd);
    if (!info.isFile()) throw new TypeError("Cannot read config: it is not a regular file");
    if (checked?.identity !== undefined && identityOf(info) !== checked.identity) throw new ChangedError();
    if (info.size > maxBytes) throw tooLarge(maxBytes);
    const startedAt = Date.now();
    const bytes = await readAll(fd, maxBytes, afterChunk);
    // A write during the read (in place, or a truncation) moves the file's size or times: what was read may be the
    // start of one version and the end of another, which can be valid JSON that nobody wrote.
    if (moved(info, nodeFs().fstatSync(fd))) throw new ChangedError("while it was read");
    // Unless it landed in the clock tick of the file's previous write, which its times cannot tell apart. Such a
    // recent file is read a second time, and used only when both reads agree.
    if (info.mtimeMs >= startedAt - RACY_MS) {
      const again = await readAll(fd, maxBytes, afterChunk);
      if (moved(info, nodeFs().fstatSync(fd)) || !sameBytes(bytes, again)) throw new ChangedError("while it was read");
    }
    return bytes;
  } finally {
    nodeFs().closeSync(fd);
  }
}

/** Reads the whole descriptor from its start, refusing more than `maxBytes`. */
async function readAll(
  fd: number,
  maxBytes: number,
  afterChunk: (() => void | Promise<void>) | undefined,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await readDescriptor(fd, buffer, 0, buffer.length, total);
    if (n === 0) break;
    total += n;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(buffer.slice(0, n));
    await afterChunk?.();
  }
  return concatBytes(chunks);
}

function moved(before: Stats, after: Stats): boolean {
  return before.size !== after.size || before.mtimeMs !== after.mtimeMs || before.ctimeMs !== after.ctimeMs;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** The file at the path is not the one the safety check approved: it was replaced in between. */
export class ChangedError extends Error {
  /** @param when When it changed: after the safety check (the default), or while it was read. */
  constructor(when = "after it was checked") {
    super(`Cannot read config: it changed ${when}; it is checked and read again at the next call`);
    this.name = "ChangedError";
  }
}

function tooLarge(maxBytes: number): RangeError {
  return new RangeError(`Cannot read config: it is larger than ${maxBytes} bytes`);
}
