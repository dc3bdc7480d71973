// A rollback journal may end with the name of a super-journal: the file that
// ties together the journals of one transaction over several attached
// databases. Rolling such a journal back, SQLite opens the named file, reads
// it and, when no journal it lists points back, deletes it — SQLite's own
// I/O, which Deno's permissions never see, so a planted journal could have a
// writable server delete any file its user may. This server never attaches a
// database, so no journal it leaves behind names one: a journal that does (or
// one that is not a plain file) was put there by someone else, and the
// database is refused before a connection that may write, and so roll back,
// opens it.

// The eight bytes SQLite writes after a super-journal's name (and at the start of every journal header).
const JOURNAL_MAGIC = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7];
// Where the record's fields sit, counted back from the journal's end: the name's length, its checksum, the magic.
const RECORD_TAIL = 16;

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
 * Why a connection that may write must not open or write `database` now: it
 * is reached through a link (SQLite's journal is beside its real path), its
 * journal is not a plain file (a link, a FIFO, a folder), or it names a super-journal
 * (the last sixteen bytes hold a name length other than zero and SQLite's
 * journal magic; the name's checksum is not needed to refuse). Undefined
 * when there is no journal or a plain one, which SQLite may roll back.
 * Only the journal's size and its last sixteen bytes are read.
 *
 * @param database The database file.
 * @returns The reason, in words for the operator, or undefined.
 *
 * @example No journal
 * ```ts ignore
 * import { journalProblem } from "./super_journal.ts";
 *
 * if (journalProblem("/srv/shop.db") !== undefined) throw new Error("refused");
 * ```
 */
export function journalProblem(database: string): string | undefined {
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
  if (info.size < RECORD_TAIL) return undefined;
  const tail = new Uint8Array(RECORD_TAIL);
  const file = Deno.openSync(journal, { read: true });
  try {
    file.seekSync(info.size - RECORD_TAIL, Deno.SeekMode.Start);
    let filled = 0;
    while (filled < RECORD_TAIL) {
      const n = file.readSync(tail.subarray(filled));
      if (n === null) return undefined;
      filled += n;
    }
  } finally {
    file.close();
  }
  const nameLength = new DataView(tail.buffer).getUint32(0);
  const magic = JOURNAL_MAGIC.every((byte, i) => tail[8 + i] === byte);
  return magic && nameLength > 0
    ? `its journal ${journal} names a super-journal, a file SQLite would read and delete when it rolls the journal ` +
      "back; this server never writes such a journal"
    : undefined;
}
