import { concatBytes } from "../internal/concat_bytes.ts";

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
 * a file that grows after `stat` cannot exhaust memory).
 *
 * @throws {RangeError} When the file is larger than `maxBytes`.
 * @throws {TypeError} When the path is not a regular file (a FIFO would block).
 */
export async function readBounded(path: string, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  const info = await Deno.stat(path);
  if (!info.isFile) throw new TypeError("Cannot read config: it is not a regular file");
  if (info.size > maxBytes) throw tooLarge(maxBytes);
  using file = await Deno.open(path, { read: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const n = await file.read(buffer);
    if (n === null) break;
    total += n;
    if (total > maxBytes) throw tooLarge(maxBytes);
    chunks.push(buffer.slice(0, n));
  }
  return concatBytes(chunks);
}

function tooLarge(maxBytes: number): RangeError {
  return new RangeError(`Cannot read config: it is larger than ${maxBytes} bytes`);
}
