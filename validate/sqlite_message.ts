// What a refusal says when SQLite fails: SQLite's own first line, except where
// those words would send the caller the wrong way.

/**
 * SQLite's extended result codes whose message misleads a caller, and what
 * is said instead. SQLITE_READONLY_ROLLBACK (776): a read-only connection met
 * a hot journal, the trace of a write that was interrupted (a crash, a kill),
 * which only a connection that may write can roll back; SQLite says "attempt
 * to write a readonly database" about every statement, a plain SELECT too.
 */
const REWORDED: ReadonlyMap<number, string> = new Map([
  [
    776,
    "the database has a hot journal (a write to it was interrupted), which only a connection that may write can " +
    "roll back; it stays refused until the file is opened once with write access (a writable server, or sqlite3 " +
    "as its owner)",
  ],
]);

/**
 * The words for a statement SQLite failed, to follow `Cannot <action>: `:
 * SQLite's first line (its messages name tables and columns, never host
 * paths), cut at 200 characters, or the toolkit's own words where SQLite's
 * mislead: a read-only connection that meets a hot journal is told "attempt
 * to write a readonly database" about a plain SELECT, and is told here that
 * an interrupted write must be rolled back first.
 *
 * @param err What node:sqlite threw (its `errcode` is SQLite's extended result code).
 * @returns The words.
 *
 * @example SQLite's first line, when it says what happened
 * ```ts
 * import { sqliteMessage } from "@forge/toolkit/validate";
 * import { DatabaseSync } from "node:sqlite";
 * import assert from "node:assert/strict";
 *
 * const db = new DatabaseSync(":memory:");
 * assert.throws(() => db.prepare("SELECT * FROM nope"), (err: Error) => sqliteMessage(err) === "no such table: nope");
 * ```
 */
export function sqliteMessage(err: unknown): string {
  if (!(err instanceof Error)) return "query failed";
  const code = (err as { errcode?: unknown }).errcode;
  return (typeof code === "number" ? REWORDED.get(code) : undefined) ?? err.message.split("\n")[0].slice(0, 200);
}
