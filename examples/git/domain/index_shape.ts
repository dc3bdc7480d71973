// git reads the whole index into memory on every run that touches it, and
// what it holds can be far larger than the file, in pieces too small for
// GIT_ALLOC_LIMIT to stop: an index of version 4 stores each name as the
// previous one less some bytes plus a suffix, so 60,000 entries of 65 bytes
// (3.9 MB) hold 1.8 GB of names; a sparse index (`sdir`) holds folder
// entries git expands to every file of their trees, so 112 bytes can stand
// for a million files; a split index (`link`) brings in a second file.
// Before such a run the server reads the index itself, in one pass over its
// bytes, and sums what git would hold without building a name.
import { PolicyError, quote } from "@forge/toolkit/validate";
import { bufferBytes, FileBytes, gitVarint, type IndexBytes } from "./index_bytes.ts";
import { cacheTree, resolveUndo, untrackedCache } from "./index_extensions.ts";

/**
 * What git 2.39 holds for an index entry besides its name, on a 64-bit
 * machine (`struct cache_entry`): 112 bytes.
 */
export const ENTRY_BYTES = 112;

const SIGNATURE = 0x44495243; // "DIRC"
const EOIE = 0x454f4945; // end of index entries: where the extensions start, for git's threads
const IEOT = 0x49454f54; // index entry offset table: where each thread's block of entries starts
const SDIR = 0x73646972; // sparse index
const LINK = 0x6c696e6b; // split index
const TREE = 0x54524545; // cache tree
const REUC = 0x52455543; // resolve-undo records
const UNTR = 0x554e5452; // untracked cache
const FSMN = 0x46534d4e; // file system monitor bitmap
/** The most blocks of an entry offset table read (git writes one per thread). */
const MAX_BLOCKS = 65536;
const NAME_MASK = 0xfff;
const EXTENDED = 0x4000;
// The extended flags git 2.39 knows (intent-to-add, skip-worktree); any other makes it stop.
const KNOWN_EXTENDED = 0x6000;
const FOLDER = 0o040000;
const TYPE_MASK = 0o170000;

/** How an index reads with one object id size, from {@linkcode indexShape}. */
export interface IndexShape {
  /** The format version, or undefined when the header is not an index's. */
  readonly version: number | undefined;
  /** How many entries the header says the index holds. */
  readonly entries: number;
  /**
   * What git would hold for the entries read ({@linkcode ENTRY_BYTES} each, plus its name once expanded) and
   * for the extensions it loads.
   */
  readonly heldBytes: number;
  /** The part of `heldBytes` that is the extensions'. */
  readonly extensionBytes: number;
  /** Why the server refuses the index read this way, to follow "its index", or undefined. */
  readonly refused: string | undefined;
  /** Why git cannot read it this way (it stops, or reads past what the file holds), or undefined. */
  readonly damaged: string | undefined;
}

/**
 * Reads an index file's bytes the way git 2.39 does with object ids of
 * `hashSize` bytes, without building a name: the header (`DIRC`, version 2,
 * 3 or 4, the entry count), every entry (version 2 and 3: fixed fields, a
 * 12-bit name length where 0xFFF means "up to the NUL", padding to 8 bytes,
 * extended flags; version 4: a varint of bytes to strip from the previous
 * name and a NUL-ended suffix, no padding), then the extensions. Refused:
 * entries that would take git more than `maxBytes` to hold
 * ({@linkcode ENTRY_BYTES} each plus its name), a folder entry (mode 040000,
 * a sparse index's), the `sdir` and `link` extensions, and an
 * end-of-entries marker (`EOIE`) or entry offset table (`IEOT`) that
 * disagrees with the entries, since git's threads would then read others.
 * Each is found as the pass reaches it, so an index damaged further on is
 * refused all the same. One pass, O(file size), and nothing kept per entry.
 *
 * @param bytes The whole file.
 * @param hashSize The object id size: 20 (SHA-1) or 32 (SHA-256).
 * @param maxBytes The most git may hold for the entries.
 * @returns How it reads.
 *
 * @example An index of version 2 with no entries
 * ```ts
 * import { indexShape } from "./index_shape.ts";
 * import assert from "node:assert/strict";
 *
 * const bytes = new Uint8Array(32);
 * new DataView(bytes.buffer).setUint32(0, 0x44495243); // "DIRC"
 * new DataView(bytes.buffer).setUint32(4, 2);
 * const shape = indexShape(bytes, 20, 64 * 1024 * 1024);
 * assert.deepEqual(shape, {
 *   version: 2,
 *   entries: 0,
 *   heldBytes: 0,
 *   extensionBytes: 0,
 *   refused: undefined,
 *   damaged: undefined,
 * });
 * assert.match(indexShape(bytes.subarray(0, 20), 20, 1024).damaged ?? "", /too short/);
 * ```
 */
export function indexShape(input: Uint8Array | IndexBytes, hashSize: number, maxBytes: number): IndexShape {
  const bytes = input instanceof Uint8Array ? bufferBytes(input) : input;
  // The checksum, which git 2.39 does not verify, takes the last hashSize bytes.
  const end = bytes.length - hashSize;
  const none = { version: undefined, entries: 0, heldBytes: 0, extensionBytes: 0, refused: undefined };
  if (end < 12) return { ...none, damaged: `it is ${bytes.length} bytes, too short for an index` };
  if (bytes.u32(0) !== SIGNATURE) return { ...none, damaged: 'it does not start with "DIRC"' };
  const version = bytes.u32(4);
  if (version < 2 || version > 4) return { ...none, damaged: `its version is ${version}, not 2, 3 or 4` };
  const entries = bytes.u32(8);
  const shape = { version, entries, heldBytes: 0, extensionBytes: 0, refused: undefined, damaged: undefined };
  if (entries * ENTRY_BYTES > maxBytes) return { ...shape, refused: tooMuch(entries, maxBytes) };
  // An end-of-entries marker is where git's threads start reading the extensions: the entries must end there.
  const eoie = end - 32 >= 12 && bytes.u32(end - 32) === EOIE && bytes.u32(end - 28) === 24
    ? bytes.u32(end - 24)
    : undefined;
  const blocks = eoie === undefined ? undefined : offsetTable(bytes, eoie, end, entries);
  if (typeof blocks === "string") return { ...shape, refused: blocks };
  const walked = walkEntries(bytes, { version, entries, hashSize, maxBytes, end, blocks });
  if (walked.damaged !== undefined && eoie !== undefined && walked.refused === undefined) {
    return {
      ...shape,
      ...walked,
      refused: "has an end-of-entries marker (EOIE) over entries git cannot read in order",
    };
  }
  if (walked.refused !== undefined || walked.damaged !== undefined) return { ...shape, ...walked };
  if (eoie !== undefined && eoie !== walked.at) {
    return { ...shape, heldBytes: walked.heldBytes, refused: OFFSETS_DISAGREE };
  }
  const charged = extensions(bytes, walked.at, end, hashSize, maxBytes - walked.heldBytes);
  return {
    ...shape,
    ...charged,
    heldBytes: walked.heldBytes + charged.heldBytes,
    extensionBytes: charged.heldBytes,
  };
}

/** What {@linkcode walkEntries} needs besides the bytes. */
interface Walk {
  readonly version: number;
  readonly entries: number;
  readonly hashSize: number;
  readonly maxBytes: number;
  /** Where the checksum starts. */
  readonly end: number;
  /** The blocks of git's threads, from the entry offset table. */
  readonly blocks: { index: Uint32Array; offset: Uint32Array } | undefined;
}

/** The entries, one after another from byte 12: where they end, what git holds for them, or why not. */
function walkEntries(
  bytes: IndexBytes,
  walk: Walk,
): { at: number; heldBytes: number; refused?: string; damaged?: string } {
  const { version, entries, maxBytes, end, blocks } = walk;
  const fixed = 40 + walk.hashSize;
  let at = 12;
  let held = 0;
  let previous = 0;
  let block = 0;
  for (let i = 0; i < entries; i++) {
    if (at + fixed + 2 > end) return pastEnd(at, held, i, entries);
    const flags = bytes.u16(at + fixed);
    let nameAt = at + fixed + 2;
    if (flags & EXTENDED) {
      if (nameAt + 2 > end) return pastEnd(at, held, i, entries);
      if (bytes.u16(nameAt) & ~KNOWN_EXTENDED) {
        return { at, heldBytes: held, damaged: `${entry(i, entries)} has flags git does not know` };
      }
      nameAt += 2;
    }
    if ((bytes.u32(at + 24) & TYPE_MASK) === FOLDER) {
      return {
        at,
        heldBytes: held,
        refused: `holds a folder entry (mode 040000, ${entry(i, entries)}), as a sparse index does, which git ` +
          "expands to every file of that folder's tree, however many; make it a full index with " +
          "`git sparse-checkout set --no-sparse-index`",
      };
    }
    // A block of git's threads starts here: it must start where this pass is, and (version 4) owe nothing to
    // the previous name, which the thread does not have.
    const starts = blocks !== undefined && block < blocks.index.length && blocks.index[block] === i;
    if (starts && blocks.offset[block++] !== at) return { at, heldBytes: held, refused: OFFSETS_DISAGREE };
    let length = flags & NAME_MASK;
    let next: number;
    if (version === 4) {
      const varint = readVarint(bytes, nameAt, end);
      if (varint === undefined) return pastEnd(at, held, i, entries);
      const [strip, suffixAt] = varint;
      if (starts && i > 0 && strip !== previous) return { at, heldBytes: held, refused: OFFSETS_DISAGREE };
      if (i > 0 && strip > previous) {
        return { at, heldBytes: held, damaged: `${entry(i, entries)} strips more than the previous name holds` };
      }
      const copied = i === 0 ? 0 : previous - strip;
      if (length === NAME_MASK) {
        const nul = bytes.indexOf(0, suffixAt, end);
        if (nul < 0) return pastEnd(at, held, i, entries);
        length = nul - suffixAt + copied;
        next = nul + 1;
      } else if (length < copied) {
        return {
          at,
          heldBytes: held,
          damaged: `${entry(i, entries)} is shorter than what it keeps of the previous name`,
        };
      } else {
        next = suffixAt + length - copied + 1;
      }
    } else {
      if (length === NAME_MASK) {
        const nul = bytes.indexOf(0, nameAt, end);
        if (nul < 0) return pastEnd(at, held, i, entries);
        length = nul - nameAt;
      }
      next = at + ((nameAt - at + length + 8) & ~7);
    }
    if (next > end) return pastEnd(at, held, i, entries);
    held += ENTRY_BYTES + length;
    if (held > maxBytes) return { at, heldBytes: held, refused: tooMuch(entries, maxBytes, version, i + 1) };
    previous = length;
    at = next;
  }
  return { at, heldBytes: held };
}

function entry(i: number, entries: number): string {
  return `entry ${i + 1} of ${entries}`;
}

function pastEnd(
  at: number,
  heldBytes: number,
  i: number,
  entries: number,
): { at: number; heldBytes: number; damaged: string } {
  return { at, heldBytes, damaged: `${entry(i, entries)} runs past the end of the file` };
}

/**
 * The extensions from `at` to the checksum: what git holds for those it
 * loads (the cache tree, resolve-undo records and untracked cache read as
 * git reads them, a file system monitor bitmap or entry offset table as
 * one copy), and why they are refused or damaged, if they are. git skips
 * other extensions named A to Z without holding them.
 */
function extensions(
  bytes: IndexBytes,
  at: number,
  end: number,
  hashSize: number,
  budget: number,
): { heldBytes: number; refused?: string; damaged?: string } {
  let held = 0;
  // git reads extensions while 8 bytes are left before the checksum.
  while (at + 8 <= end) {
    const signature = bytes.u32(at);
    const size = bytes.u32(at + 4);
    if (signature === SDIR) {
      return {
        heldBytes: held,
        refused: 'is a sparse index (the "sdir" extension): git expands its folder entries to every file of ' +
          "their trees, however many; make it a full index with `git sparse-checkout set --no-sparse-index` (or " +
          "end the sparse checkout with `git sparse-checkout disable`)",
      };
    }
    if (signature === LINK) {
      return {
        heldBytes: held,
        refused: 'is a split index (the "link" extension), whose entries are in a second file this server does ' +
          "not check; make it one file with `git update-index --no-split-index` (and `git config " +
          "core.splitIndex false`)",
      };
    }
    const name = String.fromCharCode(bytes.byte(at), bytes.byte(at + 1), bytes.byte(at + 2), bytes.byte(at + 3));
    if (!/^[A-Z]/.test(name)) {
      return { heldBytes: held, damaged: `it holds an extension ${quote(name)} git does not know` };
    }
    if (at + 8 + size > end) {
      return { heldBytes: held, damaged: `its extension ${quote(name)} runs past the end of the file` };
    }
    const read = signature === TREE
      ? cacheTree
      : signature === REUC
      ? resolveUndo
      : signature === UNTR
      ? untrackedCache
      : undefined;
    if (read !== undefined) {
      // Besides what git builds from it, its bytes, which git reads from the index mapped into memory.
      const charge = read(bytes, at + 8, size, hashSize, budget - held - size);
      held += size + charge.heldBytes;
      if (charge.refused !== undefined) return { heldBytes: held, refused: charge.refused };
    } else if (signature === FSMN || signature === IEOT) {
      held += size;
    }
    if (held > budget) {
      return {
        heldBytes: held,
        refused: `holds an extension ${quote(name)} that git would hold, with the entries, in more memory than ` +
          "alloc_limit_mib allows; rebuild the index from the last commit with `rm .git/index && git reset`",
      };
    }
    at += 8 + size;
  }
  return { heldBytes: held };
}

const TOO_MANY_BLOCKS = `has an entry offset table (IEOT) of more than ${MAX_BLOCKS} blocks (git writes one per ` +
  "thread); rewrite it with `git -c index.threads=1 update-index --force-write-index`";

const OFFSETS_DISAGREE = "has an end-of-entries marker (EOIE) or entry offset table (IEOT) that disagrees with its " +
  "entries, so git's threads would read other entries than those checked; rewrite it with " +
  "`git -c index.threads=1 update-index --force-write-index`";

function mib(bytes: number): string {
  return `${bytes / (1024 * 1024)} MiB`;
}

/** The refusal of entries git would hold past `maxBytes`: all of them, or their names by entry `reached`. */
function tooMuch(entries: number, maxBytes: number, version?: number, reached?: number): string {
  const what = reached === undefined
    ? `holds ${entries} entries, which take git over ${mib(maxBytes)} of memory at ${ENTRY_BYTES} bytes each`
    : `holds ${entries} entries whose names, expanded, take git over ${mib(maxBytes)} of memory by entry ` +
      `${reached}${
        version === 4 ? " (version 4 writes each name as the previous one less some bytes plus a suffix)" : ""
      }`;
  return `${what}, more than alloc_limit_mib allows; raise it if the repository really has that many files`;
}

/**
 * The blocks of git's entry offset table, which the end-of-entries marker
 * at `from` leads to: entry index and file offset of each, in order; none
 * when git would read the entries in one go; a refusal when the blocks do
 * not cover the entries one after another.
 */
function offsetTable(
  bytes: IndexBytes,
  from: number,
  end: number,
  entries: number,
): { index: Uint32Array; offset: Uint32Array } | string | undefined {
  let at = from;
  while (at >= 12 && at + 8 <= end) {
    const size = bytes.u32(at + 4);
    if (bytes.u32(at) !== IEOT) {
      at += 8 + size;
      continue;
    }
    if (size < 4 || at + 8 + size > end) return OFFSETS_DISAGREE;
    // git reads no table of another version, nor one without blocks.
    if (bytes.u32(at + 8) !== 1) return undefined;
    const count = Math.floor((size - 4) / 8);
    if (count === 0) return undefined;
    if (count > entries) return OFFSETS_DISAGREE;
    if (count > MAX_BLOCKS) return TOO_MANY_BLOCKS;
    const index = new Uint32Array(count);
    const offset = new Uint32Array(count);
    let first = 0;
    for (let i = 0; i < count; i++) {
      const nr = bytes.i32(at + 16 + i * 8);
      if (nr <= 0) return OFFSETS_DISAGREE;
      index[i] = first;
      offset[i] = bytes.u32(at + 12 + i * 8);
      first += nr;
    }
    return first === entries ? { index, offset } : OFFSETS_DISAGREE;
  }
  return undefined;
}

/** git's varint (`decode_varint`) at `at`: its value and where the name goes on, or undefined past `end`. */
function readVarint(bytes: IndexBytes, at: number, end: number): [number, number] | undefined {
  if (at >= end) return undefined;
  let c = bytes.byte(at);
  let value = c & 127;
  let p = at + 1;
  while (c & 128) {
    value += 1;
    // git's value is 64 bits wide and overflows at 2^57: it then reads 0 and leaves the bytes to the name. Past
    // 2^50 (exact in a double) the value is more than any name holds, and is only followed to find the overflow.
    if (value >= 2 ** 50) {
      const big = gitVarint(bytes, at, end);
      return big && [Number(big.value), big.end];
    }
    if (p >= end) return undefined;
    c = bytes.byte(p++);
    value = value * 128 + (c & 127);
  }
  return [value, p];
}

/** How {@linkcode assertIndexShape} reads an index. */
export interface IndexShapeOptions {
  /** The most git may hold for the index's entries: the config's `alloc_limit_mib`, in bytes. */
  maxBytes: number;
  /**
   * The repository's object id size (20 or 32), asked only when a reading
   * with one size refuses the index and one with the other does not.
   */
  hashSize: () => Promise<number>;
  /** Ends the read (the call's deadline or cancellation). */
  signal?: AbortSignal;
  /** Told of every read of the file: where, and how many bytes at most (at most 64 KiB, `INDEX_CHUNK`). */
  onRead?: (at: number, length: number) => void;
}

/** The index file {@linkcode assertIndexShape} opened and read, as its descriptor told. */
export interface ReadIndex {
  /** The opened file's `stat()`, taken before any of its bytes were read. */
  readonly info: Deno.FileInfo;
  /** When that `stat()` was made (`Date.now()` just before it). */
  readonly statAt: number;
}

/**
 * Refuses a repository whose index git could not hold within
 * `options.maxBytes`, or would fill from elsewhere, before a run that reads
 * it: {@linkcode indexShape} reads the file with 20- and 32-byte object
 * ids, through a window of 64 KiB (`INDEX_CHUNK`), so that a call
 * holds that much of it whatever its size (it is refused unread when larger
 * than `maxBytes` or not a regular file); a refusal by one reading asks `hashSize` which
 * one git uses. An index git cannot read either way is refused as damaged.
 * No index (a repository with nothing added) passes.
 *
 * @param repo The repository's name, for the message.
 * @param path The index file (`<git dir>/index`).
 * @param options The limit, the object id size and the signal.
 * @returns The file it read, as its descriptor told before the read, or undefined when there is no index.
 * @throws {PolicyError} When git would hold too much (code `too-large`), or the index is sparse, split, damaged or not a file (code `invalid-input`).
 *
 * @example Before a status
 * ```ts ignore
 * await assertIndexShape("app", "/srv/app/.git/index", { maxBytes: 64 << 20, hashSize: () => Promise.resolve(20) });
 * ```
 */
export async function assertIndexShape(
  repo: string,
  path: string,
  options: IndexShapeOptions,
): Promise<ReadIndex | undefined> {
  const { maxBytes, hashSize, signal } = options;
  const refuse = (why: string, code: "too-large" | "invalid-input" = "invalid-input") =>
    new PolicyError(code, `Cannot read the index of repo ${quote(repo)}: its index ${why}`);
  // Looked at first, so that a FIFO in its place is never opened (an open would wait for a writer).
  const info = await Deno.stat(path).catch((err) => err as Error);
  if (info instanceof Deno.errors.NotFound) return undefined;
  if (info instanceof Error) throw refuse("cannot be read");
  if (!info.isFile) throw refuse("is not a regular file");
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw refuse("cannot be read");
  }
  let readings: IndexShape[];
  let read: ReadIndex;
  try {
    // What was opened is what is read: its own type and size.
    const statAt = Date.now();
    const opened = await file.stat();
    read = { info: opened, statAt };
    if (!opened.isFile) throw refuse("is not a regular file");
    if (opened.size > maxBytes) throw refuse(tooLarge(opened.size, maxBytes), "too-large");
    signal?.throwIfAborted();
    const bytes = new FileBytes(file, opened.size, options.onRead);
    readings = [indexShape(bytes, 20, maxBytes), indexShape(bytes, 32, maxBytes)];
  } catch (err) {
    if (err instanceof PolicyError) throw err;
    signal?.throwIfAborted();
    throw refuse("cannot be read");
  } finally {
    file.close();
  }
  const refusing = readings.filter((reading) => reading.refused !== undefined);
  // Most indexes read cleanly one way and are damaged the other: git reads them one of those ways.
  if (refusing.length === 0 && readings.some((reading) => reading.damaged === undefined)) return read;
  const shape = refusing.length === 1
    ? readings[(await hashSize()) === 32 ? 1 : 0]
    : refusing.find((reading) => reading.damaged === undefined) ?? refusing[0] ?? readings[0];
  if (shape.refused !== undefined) {
    const over = shape.heldBytes > maxBytes || shape.entries * ENTRY_BYTES > maxBytes;
    throw refuse(shape.refused, over ? "too-large" : "invalid-input");
  }
  if (shape.damaged !== undefined) {
    throw refuse(
      `is damaged (${shape.damaged}), so git cannot read it either; remove it and run \`git reset\` to ` +
        "rebuild it from the last commit",
    );
  }
  return read;
}

function tooLarge(size: number, maxBytes: number): string {
  return `is ${size} bytes, more than the ${mib(maxBytes)} git may hold (alloc_limit_mib)`;
}
