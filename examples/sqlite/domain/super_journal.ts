// A rollback journal may end with the name of a super-journal: the file that
// ties together the journals of one transaction over several attached
// databases. Rolling such a journal back, SQLite opens the named file, reads
// it and, when no journal it lists points back, deletes it — SQLite's own
// I/O, which Deno's permissions never see, so a planted journal could have a
// writable server delete any file its user may. This server never attaches a
// database, so no journal it leaves behind names one: a journal that does (or
// one that is not a plain file) is refused before a connection that may
// write, and so roll back, opens it.
//
// Rolling back also resizes the database to the page count in the journal's
// first header and writes each record's page into it: a planted journal could
// grow the file past max_database_mb (a red team's made it 1 TiB, sparse).
// A journal whose header or any record reaches past the cap is refused too,
// and one with a second name (a hard link to a file elsewhere). What stays
// possible: a journal planted within those bounds rewrites pages of the
// database as it says; only the folder's permissions keep others from
// writing there (see the README).
// The eight bytes SQLite writes after a super-journal's name (and at the start of every journal header).
const JOURNAL_MAGIC = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
// Where the record's fields sit, counted back from the journal's end: the name's length, its checksum, the magic.
const RECORD_TAIL = 16;
// A journal header (SQLite's file format, section 4.1): the magic, the record count (0xffffffff: to the end of the
// file), the checksum nonce, the database's page count before the write, the sector size and the page size, all
// big-endian. It fills one sector; each record is a page number, a page and a checksum; another header may follow
// the records at the next sector's start.
const HEADER_BYTES = 28;
const ALL_RECORDS = 0xffff_ffff;

/**
 * The journal SQLite rolls an interrupted write of `database` back from.
 *
 * @param database The database file.
 * @returns `<database>-journal`.
 *
 * @example
 * ```ts
 * import { journalOf } from "./super_journal.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(journalOf("/srv/shop.db"), "/srv/shop.db-journal");
 * ```
 */
export function journalOf(database: string): string {
  return `${database}-journal`;
}

/**
 * What a database process may read: the database, and, for one that may
 * write, its journal, which it reads before opening ({@linkcode journalProblem}).
 *
 * @param database The database file.
 * @param writable Whether the process opens a read-write connection.
 * @returns The files.
 *
 * @example
 * ```ts
 * import { databaseReads } from "./super_journal.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(databaseReads("/srv/shop.db", true), ["/srv/shop.db", "/srv/shop.db-journal"]);
 * ```
 */
export function databaseReads(database: string, writable: boolean): string[] {
  return writable ? [database, journalOf(database)] : [database];
}

/**
 * Why a connection that may write must not open or write `database` now,
 * rolling its journal back: it is reached through a link (SQLite's journal
 * is beside its real path), or its journal
 * - is not a plain file (a link, a FIFO, a folder), or has a second name (a hard link);
 * - names a super-journal (the last sixteen bytes hold a name length other
 *   than zero and SQLite's journal magic; the name's checksum is not needed to refuse);
 * - holds a header whose page count times page size (the size SQLite gives
 *   the database before it writes the pages back) is past `maxDatabaseMb`, or
 *   a record whose page lies past it (each header's records are walked, so
 *   this reads the journal once; a header with a page or sector size SQLite
 *   rejects is taken at the largest page size, and ends the walk).
 *
 * Undefined when there is no journal, or one SQLite may roll back within
 * those bounds: such a journal still writes the pages it holds (checksums
 * are no secret), which only the folder's permissions keep others from planting.
 *
 * @param database The database file.
 * @param maxDatabaseMb The largest the database file may be, in MiB (`max_database_mb`).
 * @returns The reason, in words for the operator, or undefined.
 *
 * @example No journal
 * ```ts ignore
 * import { journalProblem } from "./super_journal.ts";
 *
 * if (journalProblem("/srv/shop.db", 1_024) !== undefined) throw new Error("refused");
 * ```
 */
export function journalProblem(database: string, maxDatabaseMb: number): string | undefined {
  // SQLite keeps the journal beside the file's real path: through a link it would be one this check never reads.
  let real: string;
  try {
    real = Deno.realPathSync(database);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  if (real !== database) {
    return `it is reached through a link (its real path is ${real}), beside which SQLite keeps a journal this ` +
      "server does not read; configure the real path";
  }
  const journal = journalOf(database);
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(journal);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
  if (!info.isFile) return `its journal ${journal} is not a plain file`;
  if (info.nlink !== null && info.nlink > 1) {
    return `its journal ${journal} has ${info.nlink} names (a hard link): SQLite would write and delete a file ` +
      "that is also elsewhere";
  }
  const file = Deno.openSync(journal, { read: true });
  try {
    const tail = readAt(file, info.size - RECORD_TAIL, RECORD_TAIL);
    if (tail !== undefined) {
      const nameLength = new DataView(tail.buffer).getUint32(0);
      if (nameLength > 0 && isMagic(tail, 8)) {
        return `its journal ${journal} names a super-journal, a file SQLite would read and delete when it rolls ` +
          "the journal back; this server never writes such a journal";
      }
    }
    return pagesProblem(file, info.size, maxDatabaseMb * 2 ** 20, journal);
  } finally {
    file.close();
  }
}

/** Why the journal's headers or records reach past `maxBytes` of database; undefined when none does. */
function pagesProblem(file: Deno.FsFile, size: number, maxBytes: number, journal: string): string | undefined {
  const past = (what: string) =>
    `its journal ${journal} ${what} past max_database_mb (${maxBytes / 2 ** 20} MiB); rolling it back would grow ` +
    "the database there";
  const first = readAt(file, 0, HEADER_BYTES);
  // No magic: SQLite reads no header, so it resizes and writes nothing.
  if (first === undefined || !isMagic(first, 0)) return undefined;
  const view = new DataView(first.buffer);
  const pageSize = view.getUint32(24);
  const sectorSize = view.getUint32(20);
  const valid = isPowerOfTwo(pageSize, 512, 65_536) && isPowerOfTwo(sectorSize, 32, 65_536);
  // SQLite stops at a header it finds invalid; the largest page size bounds what any reading of it could mean.
  const pageCount = view.getUint32(16);
  if (pageCount * (valid ? pageSize : 65_536) > maxBytes) {
    return past(`gives the database ${pageCount} pages of ${valid ? pageSize : "up to 65536"} bytes,`);
  }
  if (!valid) return undefined;
  const maxPage = Math.floor(maxBytes / pageSize);
  const recordBytes = 4 + pageSize + 4;
  let header = 0;
  while (header + HEADER_BYTES <= size) {
    const bytes = header === 0 ? first : readAt(file, header, HEADER_BYTES);
    if (bytes === undefined || !isMagic(bytes, 0)) return undefined;
    const count = new DataView(bytes.buffer).getUint32(8);
    let at = header + sectorSize;
    // The count is the header's word, the file's size the bound: at most one read per record in the file.
    const records = Math.min(count === ALL_RECORDS ? Infinity : count, Math.floor((size - at) / recordBytes));
    for (let i = 0; i < records; i++, at += recordBytes) {
      const page = new DataView(readAt(file, at, 4)!.buffer).getUint32(0);
      if (page > maxPage) return past(`holds page ${page} (of ${pageSize} bytes),`);
    }
    // The next header starts at the sector after the records; none when they ran to the end.
    if (records === 0 && count !== 0) return undefined;
    header = Math.ceil(Math.max(at, header + 1) / sectorSize) * sectorSize;
  }
  return undefined;
}

function isPowerOfTwo(n: number, min: number, max: number): boolean {
  return n >= min && n <= max && (n & (n - 1)) === 0;
}

function isMagic(bytes: Uint8Array, at: number): boolean {
  return JOURNAL_MAGIC.every((byte, i) => bytes[at + i] === byte);
}

/** `length` bytes of `file` from `offset`; undefined when the file ends first (or `offset` is negative). */
function readAt(file: Deno.FsFile, offset: number, length: number): Uint8Array | undefined {
  if (offset < 0) return undefined;
  const bytes = new Uint8Array(length);
  file.seekSync(offset, Deno.SeekMode.Start);
  let filled = 0;
  while (filled < length) {
    const n = file.readSync(bytes.subarray(filled));
    if (n === null) return undefined;
    filled += n;
  }
  return bytes;
}
