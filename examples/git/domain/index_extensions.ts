// What git 2.39 holds for the extensions of an index it loads: the cache
// tree (TREE, cache-tree.c read_one), the resolve-undo records (REUC,
// resolve-undo.c resolve_undo_read) and the untracked cache (UNTR, dir.c
// read_untracked_extension and read_one_dir) are turned into one small
// allocation per folder, name or record, far more than the bytes on disk
// (an empty untracked name is one byte on disk and 40 in git), in pieces
// too small for GIT_ALLOC_LIMIT. Each is read here the way git reads it,
// in one pass, summing glibc's chunk for every allocation git makes.
import { gitVarint, type IndexBytes } from "./index_bytes.ts";

/** What an extension costs git, or why it is refused. */
export interface ExtensionCharge {
  /** What git would hold for it, in bytes (as far as it was read). */
  readonly heldBytes: number;
  /** Why the server refuses it, to follow "its index", or undefined. */
  readonly refused?: string;
}

/** The deepest cache tree or untracked cache read: git reads both recursively, and no path goes deeper. */
export const MAX_DEPTH = 4096;
/** The longest name compared with the one before it: a chunk of the reader's window. */
const MAX_NAME = 4096;
/** The most bytes of earlier names kept at once to check a cache tree's order. */
const MAX_KEPT = 64 * 1024;

/** glibc's chunk for a request of `bytes` on a 64-bit machine: 8 bytes of header, 16-byte steps, 32 at least. */
export function chunk(bytes: number): number {
  return Math.max(32, Math.ceil((bytes + 8) / 16) * 16);
}

// git 2.39's structures on a 64-bit machine: struct object_id is 36 bytes, struct stat_data 36.
/** struct cache_tree: entry_count, oid, subtree_nr, subtree_alloc, down. */
const CACHE_TREE = 56;
/** struct cache_tree_sub before its name: cache_tree, count, namelen, used (24 with padding). */
const CACHE_TREE_SUB = 24;
/** struct resolve_undo_info: mode[3], oid[3]. */
const RESOLVE_UNDO_INFO = 120;
/** A string_list_item (string, util) and the growth of the list (alloc_nr: half as many again, and the copy). */
const LIST_ITEM = 40;
/** struct untracked_cache_dir before its name. */
const UNTRACKED_DIR = 112;
/** struct untracked_cache, its three ewah bitmaps' structs and the read_data: an upper bound. */
const UNTRACKED_CACHE = 512;
/** struct ondisk_untracked_cache: two stat_data and dir_flags, before the two object ids. */
const ONDISK_UNTRACKED = 76;

const MAX_LONG = 2n ** 63n - 1n;

/**
 * The cache tree (`TREE`) of `size` bytes at `from`: a node is a name, a
 * NUL, an entry count and a subtree count in decimal, a newline, an
 * object id when the count is not negative, then its subtrees. git holds
 * per node a `struct cache_tree`, its `down` array (subtrees + 2
 * pointers), and per subtree a `struct cache_tree_sub` with its name.
 * git inserts each subtree into the sorted `down` array, moving those
 * after it: subtrees out of order (or repeated) are refused, since
 * reversed they take time as the square of their number. Where git stops
 * reading (it drops the cache tree and goes on) the charge stops too.
 *
 * @param bytes The index.
 * @param from Where the extension's data starts.
 * @param size Its size.
 * @param hashSize The object id size.
 * @param budget The most git may hold for it.
 * @returns What git holds for it, or why it is refused.
 *
 * @example A root with no entries and no subtrees
 * ```ts
 * import { bufferBytes } from "./index_bytes.ts";
 * import { cacheTree, chunk } from "./index_extensions.ts";
 * import assert from "node:assert/strict";
 *
 * const data = new TextEncoder().encode("\0-1 0\n");
 * assert.equal(cacheTree(bufferBytes(data), 0, data.length, 20, 1024).heldBytes, chunk(56) + chunk(16));
 * ```
 */
export function cacheTree(
  bytes: IndexBytes,
  from: number,
  size: number,
  hashSize: number,
  budget: number,
): ExtensionCharge {
  const end = from + size;
  let at = from;
  let held = 0;
  let kept = 0;
  // Per open node: subtrees still to read, and the name of the one before.
  const open: { left: number; previous: Uint8Array | undefined }[] = [];
  const refuse = (why: string): ExtensionCharge => ({ heldBytes: held, refused: refusal(TREE, why) });
  for (;;) {
    const nameAt = at;
    const nul = bytes.indexOf(0, at, end);
    if (nul < 0) return { heldBytes: held };
    const nameLength = nul - nameAt;
    at = nul + 1;
    const parent = open.at(-1);
    if (parent !== undefined) {
      if (nameLength > MAX_NAME) return refuse(`names a folder of ${nameLength} bytes, longer than any path`);
      const name = bytes.slice(nameAt, nameLength);
      if (parent.previous !== undefined && subtreeOrder(parent.previous, name) >= 0) {
        return refuse(outOfOrder("subtrees"));
      }
      kept += name.length - (parent.previous?.length ?? 0);
      if (kept > MAX_KEPT) return refuse("nests names longer than any path");
      parent.previous = name;
      held += chunk(CACHE_TREE_SUB + nameLength + 1);
    }
    const count = strtol(bytes, at, end);
    if (count === undefined) return { heldBytes: held };
    const subtrees = strtol(bytes, count.end, end);
    if (subtrees === undefined) return { heldBytes: held };
    held += chunk(CACHE_TREE);
    // git skips to the first newline or NUL after the name, wherever the numbers ended.
    let line = at;
    while (line < end && bytes.byte(line) !== 0x0a && bytes.byte(line) !== 0) line++;
    if (line >= end) return { heldBytes: held };
    at = line + 1;
    if (count.value >= 0) {
      if (end - at < hashSize) return { heldBytes: held };
      at += hashSize;
    }
    // subtree_alloc is unsigned: a count below -2 is a request git's allocator refuses (charged as one).
    const slots = subtrees.value + 2 >= 0 ? subtrees.value + 2 : 2 ** 32 + subtrees.value + 2;
    held += chunk(slots * 8);
    if (held > budget) return { heldBytes: held, refused: overBudget(TREE) };
    if (subtrees.value > 0) {
      if (open.length >= MAX_DEPTH) return refuse(`nests folders deeper than ${MAX_DEPTH}`);
      open.push({ left: subtrees.value, previous: undefined });
      continue;
    }
    // This node is read: so are the nodes whose last subtree it ends.
    for (;;) {
      const top = open.at(-1);
      if (top === undefined) return { heldBytes: held };
      if (--top.left > 0) break;
      kept -= top.previous?.length ?? 0;
      open.pop();
    }
  }
}

const TREE: Extension = {
  what: 'a cache tree (the "TREE" extension)',
  fix: "rebuild the index from the last commit with `rm .git/index && git reset` (the work tree is kept; " +
    "what was staged is unstaged)",
};

/** Why a list git sorts in one entry at a time is refused when its entries are out of order. */
function outOfOrder(entries: string): string {
  return `lists ${entries} out of order, which git sorts in one at a time, in time that grows as the square of their ` +
    "number";
}

/** git's subtree_name_cmp: the shorter name first, then byte by byte. */
function subtreeOrder(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) return a.length - b.length;
  return compareBytes(a, b);
}

/** strcmp of two names without a NUL. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

function isSpace(byte: number): boolean {
  return byte === 0x20 || (byte >= 0x09 && byte <= 0x0d);
}

/** C's strtol in base 10 at `at` (up to `end`), as git stores it in an int; undefined when no digit is read. */
function strtol(bytes: IndexBytes, at: number, end: number): { value: number; end: number } | undefined {
  let p = at;
  while (p < end && isSpace(bytes.byte(p))) p++;
  let negative = false;
  if (p < end && (bytes.byte(p) === 0x2b || bytes.byte(p) === 0x2d)) negative = bytes.byte(p++) === 0x2d;
  let value = 0n;
  const first = p;
  for (; p < end; p++) {
    const digit = bytes.byte(p) - 0x30;
    if (digit < 0 || digit > 9) break;
    if (value <= MAX_LONG) value = value * 10n + BigInt(digit);
  }
  if (p === first) return undefined;
  const long = negative ? (value > MAX_LONG + 1n ? -MAX_LONG - 1n : -value) : (value > MAX_LONG ? MAX_LONG : value);
  return { value: Number(BigInt.asIntN(32, long)), end: p };
}

/**
 * C's strtoul in base 8 at `at` (up to `end`), as git stores it in an
 * unsigned int: whether it is zero, and where it ends; undefined when no
 * digit is read.
 */
function strtoulOctal(bytes: IndexBytes, at: number, end: number): { zero: boolean; end: number } | undefined {
  let p = at;
  while (p < end && isSpace(bytes.byte(p))) p++;
  if (p < end && (bytes.byte(p) === 0x2b || bytes.byte(p) === 0x2d)) p++;
  const first = p;
  let low = 0; // the value modulo 2^32
  let significant = 0;
  let lead = 0;
  for (; p < end; p++) {
    const digit = bytes.byte(p) - 0x30;
    if (digit < 0 || digit > 7) break;
    if (significant === 0 && digit !== 0) lead = digit;
    if (significant > 0 || digit !== 0) significant++;
    low = (low * 8 + digit) % 2 ** 32;
  }
  if (p === first) return undefined;
  // Past 2^64 (22 octal digits from 2) strtoul answers ULONG_MAX, which is not zero.
  const overflow = significant > 22 || (significant === 22 && lead >= 2);
  return { zero: low === 0 && !overflow, end: p };
}

/**
 * The resolve-undo records (`REUC`) of `size` bytes at `from`: each a
 * path, a NUL, three octal modes each ending in a NUL, and an object id
 * per mode not zero. git puts each path in a sorted string list (a copy of
 * the path, a `struct resolve_undo_info`, a list slot), inserting it
 * where it sorts, moving those after it: paths not in strictly increasing
 * order are refused, since reversed they take time as the square of their
 * number. Where git stops reading the charge stops too.
 *
 * @param bytes The index.
 * @param from Where the extension's data starts.
 * @param size Its size.
 * @param hashSize The object id size.
 * @param budget The most git may hold for it.
 * @returns What git holds for it, or why it is refused.
 *
 * @example One record
 * ```ts
 * import { bufferBytes } from "./index_bytes.ts";
 * import { chunk, resolveUndo } from "./index_extensions.ts";
 * import assert from "node:assert/strict";
 *
 * const data = new Uint8Array([...new TextEncoder().encode("a\x000\x000\x00100644\x00"), ...new Uint8Array(20)]);
 * assert.equal(resolveUndo(bufferBytes(data), 0, data.length, 20, 1024).heldBytes, chunk(2) + chunk(120) + 40);
 * ```
 */
export function resolveUndo(
  bytes: IndexBytes,
  from: number,
  size: number,
  hashSize: number,
  budget: number,
): ExtensionCharge {
  const end = from + size;
  let at = from;
  let held = 0;
  let previous: Uint8Array | undefined;
  while (at < end) {
    const nul = bytes.indexOf(0, at, end);
    if (nul < 0 || nul + 1 >= end) return { heldBytes: held };
    const length = nul - at;
    if (length > MAX_NAME) return { heldBytes: held, refused: refusal(REUC, `names a path of ${length} bytes`) };
    const name = bytes.slice(at, length);
    if (previous !== undefined && compareBytes(previous, name) >= 0) {
      return {
        heldBytes: held,
        refused: refusal(REUC, outOfOrder("paths")),
      };
    }
    previous = name;
    held += chunk(length + 1) + chunk(RESOLVE_UNDO_INFO) + LIST_ITEM;
    if (held > budget) {
      return { heldBytes: held, refused: overBudget(REUC) };
    }
    at = nul + 1;
    let ids = 0;
    for (let i = 0; i < 3; i++) {
      const mode = strtoulOctal(bytes, at, end);
      if (mode === undefined || mode.end >= end || bytes.byte(mode.end) !== 0 || mode.end + 1 >= end) {
        return { heldBytes: held };
      }
      at = mode.end + 1;
      if (!mode.zero) ids++;
    }
    if (end - at < ids * hashSize) return { heldBytes: held };
    at += ids * hashSize;
  }
  return { heldBytes: held };
}

const REUC: Extension = {
  what: 'resolve-undo records (the "REUC" extension)',
  fix: "forget them with `git update-index --clear-resolve-undo`",
};

/** git's decode_varint at `at` (up to `end`), 64 bits wide, then cut to `bits`; undefined past `end`. */
function varint(bytes: IndexBytes, at: number, end: number, bits: 32 | 64): { value: number; end: number } | undefined {
  const read = gitVarint(bytes, at, end);
  return read && { value: Number(BigInt.asUintN(bits, read.value)), end: read.end };
}

/**
 * The untracked cache (`UNTR`) of `size` bytes at `from`: an identity, the
 * stat data and object ids of the exclude files, `exclude_per_dir`, a count
 * of folders, then each folder (a count of untracked names, a count of
 * subfolders, its name, its untracked names, then its subfolders), then
 * bitmaps. git holds per folder a `struct untracked_cache_dir` with its
 * name, an array of its untracked names (as many as the count says) and
 * one of its subfolders, and a copy of every untracked name. A cache
 * listing more folders than its count (git writes past its array) or
 * nested deeper than {@linkcode MAX_DEPTH} is refused; where git stops
 * reading (it drops the cache) the charge stops too.
 *
 * @param bytes The index.
 * @param from Where the extension's data starts.
 * @param size Its size.
 * @param hashSize The object id size.
 * @param budget The most git may hold for it.
 * @returns What git holds for it, or why it is refused.
 *
 * @example An extension too short to read: git drops it, holding nothing
 * ```ts
 * import { bufferBytes } from "./index_bytes.ts";
 * import { untrackedCache } from "./index_extensions.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(untrackedCache(bufferBytes(new Uint8Array(1)), 0, 1, 20, 1024).heldBytes, 0);
 * ```
 */
export function untrackedCache(
  bytes: IndexBytes,
  from: number,
  size: number,
  hashSize: number,
  budget: number,
): ExtensionCharge {
  // The data ends in a NUL, which git takes off.
  if (size <= 1 || bytes.byte(from + size - 1) !== 0) return { heldBytes: 0 };
  const end = from + size - 1;
  const ident = varint(bytes, from, end, 64);
  if (ident === undefined || ident.end + ident.value > end) return { heldBytes: 0 };
  let at = ident.end + ident.value;
  const excludeAt = at + ONDISK_UNTRACKED + 2 * hashSize;
  if (excludeAt + 1 > end) return { heldBytes: 0 };
  const excludeEnd = bytes.indexOf(0, excludeAt, end + 1);
  let held = chunk(UNTRACKED_CACHE) + chunk(ident.value + 1) + chunk(excludeEnd - excludeAt + 1);
  at = excludeEnd + 1;
  if (at >= end) return { heldBytes: held };
  const folders = varint(bytes, at, end, 64);
  if (folders === undefined || folders.value === 0) return { heldBytes: held };
  at = folders.end;
  held += chunk(folders.value * 8);
  const over = (): ExtensionCharge => ({
    heldBytes: held,
    refused: overBudget(UNTR),
  });
  if (held > budget) return over();
  let read = 0;
  // Per open folder: subfolders still to read.
  const open: number[] = [];
  for (;;) {
    const names = varint(bytes, at, end, 32);
    if (names === undefined) return { heldBytes: held };
    if (names.value > 0) held += chunk(names.value * 8);
    const subfolders = varint(bytes, names.end, end, 32);
    if (subfolders === undefined) return { heldBytes: held };
    held += chunk(subfolders.value * 8);
    at = subfolders.end;
    const nul = bytes.indexOf(0, at, end);
    if (nul < 0) return { heldBytes: held };
    held += chunk(UNTRACKED_DIR + nul - at + 1);
    if (held > budget) return over();
    at = nul + 1;
    for (let i = 0; i < names.value; i++) {
      const name = bytes.indexOf(0, at, end);
      if (name < 0) return { heldBytes: held };
      held += chunk(name - at + 1);
      if (held > budget) return over();
      at = name + 1;
    }
    if (++read > folders.value) {
      return {
        heldBytes: held,
        refused: refusal(UNTR, "lists more folders than its count, past the array git keeps them in"),
      };
    }
    if (subfolders.value > 0) {
      if (open.length >= MAX_DEPTH) {
        return { heldBytes: held, refused: refusal(UNTR, `nests folders deeper than ${MAX_DEPTH}`) };
      }
      open.push(subfolders.value);
      continue;
    }
    for (;;) {
      if (open.length === 0) {
        // Read whole: the bitmaps and the stat data and object ids they select, each copied once.
        return read === folders.value ? { heldBytes: held + (end - at) } : { heldBytes: held };
      }
      if (--open[open.length - 1] > 0) break;
      open.pop();
    }
  }
}

const UNTR: Extension = {
  what: 'an untracked cache (the "UNTR" extension)',
  fix: "drop it with `git update-index --no-untracked-cache` (and `git config core.untrackedCache false` " +
    "if the config turns it on)",
};

/** An extension as a refusal names it, and what its owner runs to be served again. */
interface Extension {
  readonly what: string;
  readonly fix: string;
}

/** Why an extension is refused: it `why`. */
function refusal(extension: Extension, why: string): string {
  return `holds ${extension.what} that ${why}; ${extension.fix}`;
}

/** Why an extension is refused: git would hold it past the budget. */
function overBudget(extension: Extension): string {
  return `holds ${extension.what} that git would hold, with the entries, in more memory than alloc_limit_mib allows ` +
    `(one allocation per name, folder or record, each far larger than its bytes on disk); ${extension.fix}`;
}
