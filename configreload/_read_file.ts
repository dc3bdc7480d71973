import { nodeFs } from "../internal/node_fs.ts";
import { concatBytes } from "../internal/concat_bytes.ts";
import { readDescriptor } from "../internal/read_descriptor.ts";

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
 * @throws {RangeError} When the file is larger than `maxBytes`.
 * @throws {TypeError} When the path is not a regular file.
 * @throws {Deno.errors.NotFound} When nothing is at the path.
 */
export async function readBounded(path: string, maxBytes: number): Promise<Uint8Array<ArrayBuffer>> {
  let fd: number;
  try {
    fd = nodeFs().openSync(path, nodeFs().constants.O_RDONLY | nodeFs().constants.O_NONBLOCK);
  } catch (err) {
    if ((err as { code?: unknown }).code === "ENOENT") {
      throw new Deno.errors.NotFound("Cannot read config: it does not exist", { cause: err });
    }
    throw err;
  }
  try {
    const info = nodeFs().fstatSync(fd);
    if (!info.isFile()) throw new TypeError("Cannot read config: it is not a regular file");
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

function tooLarge(maxBytes: number): RangeError {
  return new RangeError(`Cannot read config: it is larger than ${maxBytes} bytes`);
}
