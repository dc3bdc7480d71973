import { nodeFs } from "../internal/node_fs.ts";
import { concatBytes } from "../internal/concat_bytes.ts";
import { readDescriptor } from "../internal/read_descriptor.ts";
import { identityOf } from "./_file_safety.ts";

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
 * @throws {RangeError} When the file is larger than `maxBytes`.
 * @throws {TypeError} When the path is not a regular file.
 * @throws {Deno.errors.NotFound} When nothing is at the path.
 * @throws {ChangedError} When the opened file is not the one checked.
 */
export async function readBounded(
  path: string,
  maxBytes: number,
  checked?: { identity?: string; symlink?: boolean },
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
    const chunks: Uint8Array[] = [];
    let total = 0;
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      const n = await readDescriptor(fd, buffer, 0, buffer.length);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) throw tooLarge(maxBytes);
      chunks.push(buffer.slice(0, n));
    }
    return concatBytes(chunks);
  } finally {
    nodeFs().closeSync(fd);
  }
}

/** The file at the path is not the one the safety check approved: it was replaced in between. */
export class ChangedError extends Error {
  constructor() {
    super("Cannot read config: it changed after it was checked; it is checked and read again at the next call");
    this.name = "ChangedError";
  }
}

function tooLarge(maxBytes: number): RangeError {
  return new RangeError(`Cannot read config: it is larger than ${maxBytes} bytes`);
}
