// The bytes of an index, read at offsets: from a buffer (tests, small
// indexes), or from the file through a window of a fixed size, so that
// reading an index of any size takes the server the same memory however
// many calls read one at once.

/** How many bytes of an index file the server holds at once while reading it: 64 KiB. */
export const INDEX_CHUNK = 64 * 1024;

/** An index's bytes, read at offsets; every offset read is below {@linkcode IndexBytes.length}. */
export interface IndexBytes {
  /** How many bytes there are. */
  readonly length: number;
  /** The byte at `at`. */
  byte(at: number): number;
  /** The big-endian 16-bit number at `at`. */
  u16(at: number): number;
  /** The big-endian 32-bit number at `at`, unsigned. */
  u32(at: number): number;
  /** The big-endian 32-bit number at `at`, signed. */
  i32(at: number): number;
  /** Where `byte` first is from `from` up to (not including) `end`, or -1. */
  indexOf(byte: number, from: number, end: number): number;
  /** A copy of the `length` bytes at `at`, at most {@linkcode INDEX_CHUNK} of them. */
  slice(at: number, length: number): Uint8Array;
}

/**
 * git's varint (`decode_varint`) at `at`, read no further than `end`: its
 * value in git's 64 bits and where the bytes after it start, or undefined
 * when it runs past `end`. git's value overflows at 2^57: it then reads 0
 * and leaves the bytes where they were (`end` is `at`).
 *
 * @param bytes The index.
 * @param at Where the varint starts.
 * @param end Where the bytes it may take end.
 * @returns The value and where it ends, or undefined past `end`.
 *
 * @example 128 is two bytes: 0x80 then 0x00
 * ```ts
 * import { bufferBytes, gitVarint } from "./index_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(gitVarint(bufferBytes(new Uint8Array([0x80, 0x00])), 0, 2), { value: 128n, end: 2 });
 * assert.equal(gitVarint(bufferBytes(new Uint8Array([0x80])), 0, 1), undefined);
 * ```
 */
export function gitVarint(bytes: IndexBytes, at: number, end: number): { value: bigint; end: number } | undefined {
  if (at >= end) return undefined;
  let c = bytes.byte(at);
  let value = BigInt(c & 127);
  let p = at + 1;
  while (c & 128) {
    value += 1n;
    if (value >> 57n !== 0n) return { value: 0n, end: at };
    if (p >= end) return undefined;
    c = bytes.byte(p++);
    value = (value << 7n) + BigInt(c & 127);
  }
  return { value, end: p };
}

/**
 * The bytes of a buffer as {@linkcode IndexBytes}.
 *
 * @param bytes The whole index.
 * @returns Its bytes.
 *
 * @example
 * ```ts
 * import { bufferBytes } from "./index_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = bufferBytes(new Uint8Array([0x44, 0x49, 0x52, 0x43, 0]));
 * assert.equal(bytes.u32(0), 0x44495243);
 * assert.equal(bytes.indexOf(0, 0, 5), 4);
 * ```
 */
export function bufferBytes(bytes: Uint8Array): IndexBytes {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    length: bytes.length,
    byte: (at) => bytes[at],
    u16: (at) => view.getUint16(at),
    u32: (at) => view.getUint32(at),
    i32: (at) => view.getInt32(at),
    indexOf: (byte, from, end) => bytes.subarray(0, end).indexOf(byte, from),
    slice: (at, length) => bytes.slice(at, at + length),
  };
}

/**
 * An open index file's first `length` bytes as {@linkcode IndexBytes},
 * read through one window of {@linkcode INDEX_CHUNK} bytes: a read outside
 * the window moves it there (seek and read), so that the reader holds one
 * chunk whatever the file's size. The reads are synchronous, as the readings
 * that use them are, and each is one chunk of the page cache.
 */
export class FileBytes implements IndexBytes {
  /** How many bytes there are. */
  readonly length: number;
  readonly #file: Deno.FsFile;
  readonly #buffer = new Uint8Array(INDEX_CHUNK);
  readonly #view = new DataView(this.#buffer.buffer);
  readonly #onRead: ((at: number, length: number) => void) | undefined;
  #start = 0;
  #filled = 0;

  /**
   * @param file The open file.
   * @param length Its size when it was opened.
   * @param onRead Told of every read: where, and how many bytes at most.
   */
  constructor(file: Deno.FsFile, length: number, onRead?: (at: number, length: number) => void) {
    this.#file = file;
    this.length = length;
    this.#onRead = onRead;
  }

  /** Moves the window so that it holds the `count` bytes at `at` (count at most a chunk). */
  #load(at: number, count: number): number {
    if (at >= this.#start && at + count <= this.#start + this.#filled) return at - this.#start;
    const want = Math.min(INDEX_CHUNK, this.length - at);
    this.#onRead?.(at, want);
    this.#file.seekSync(at, Deno.SeekMode.Start);
    let got = 0;
    while (got < want) {
      const read = this.#file.readSync(this.#buffer.subarray(got, want));
      if (read === null || read === 0) break;
      got += read;
    }
    this.#start = at;
    this.#filled = got;
    if (got < count) throw new Error("the index became shorter while it was read");
    return 0;
  }

  /** The byte at `at`. */
  byte(at: number): number {
    return this.#buffer[this.#load(at, 1)];
  }

  /** The big-endian 16-bit number at `at`. */
  u16(at: number): number {
    return this.#view.getUint16(this.#load(at, 2));
  }

  /** The big-endian 32-bit number at `at`, unsigned. */
  u32(at: number): number {
    return this.#view.getUint32(this.#load(at, 4));
  }

  /** The big-endian 32-bit number at `at`, signed. */
  i32(at: number): number {
    return this.#view.getInt32(this.#load(at, 4));
  }

  /** Where `byte` first is from `from` up to (not including) `end`, or -1: one chunk at a time. */
  indexOf(byte: number, from: number, end: number): number {
    while (from < end) {
      const offset = this.#load(from, 1);
      const stop = Math.min(end - from, this.#filled - offset);
      const found = this.#buffer.subarray(offset, offset + stop).indexOf(byte);
      if (found >= 0) return from + found;
      from += stop;
    }
    return -1;
  }

  /** A copy of the `length` bytes at `at`, at most {@linkcode INDEX_CHUNK} of them. */
  slice(at: number, length: number): Uint8Array {
    const offset = this.#load(at, length);
    return this.#buffer.slice(offset, offset + length);
  }
}
