// Reading a descriptor node:fs opened, without holding the event loop: where
// a file must be opened O_NONBLOCK (a FIFO swapped in must not block the
// open), which Deno.open cannot do, so there is no Deno.FsFile to read.
import { nodeFs } from "./node_fs.ts";

/**
 * Reads up to `length` bytes from the descriptor's current position into
 * `buffer` at `offset`.
 *
 * @param fd A descriptor from `fs.openSync`.
 * @param buffer Where the bytes go.
 * @param offset Where in `buffer` they start.
 * @param length How many to read at most.
 * @param position Where in the file to read from, leaving the descriptor's
 *   position as it is; `null` (the default) reads from that position and
 *   moves it on.
 * @returns How many were read; 0 at the end of the file.
 *
 * @example Read a file through its descriptor
 * ```ts ignore
 * // Needs --allow-read and --allow-write for the file, which doc tests lack.
 * import { readDescriptor } from "./read_descriptor.ts";
 * import fs from "node:fs";
 * import assert from "node:assert/strict";
 *
 * const path = Deno.makeTempFileSync();
 * Deno.writeTextFileSync(path, "abc");
 * const fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
 * const buffer = new Uint8Array(8);
 * assert.equal(await readDescriptor(fd, buffer, 0, 8), 3);
 * assert.equal(await readDescriptor(fd, buffer, 3, 5), 0);
 * fs.closeSync(fd);
 * Deno.removeSync(path);
 * ```
 */
export function readDescriptor(
  fd: number,
  buffer: Uint8Array,
  offset: number,
  length: number,
  position: number | null = null,
): Promise<number> {
  return new Promise((resolve, reject) => {
    nodeFs().read(fd, buffer, offset, length, position, (err, n) => err ? reject(err) : resolve(n));
  });
}
