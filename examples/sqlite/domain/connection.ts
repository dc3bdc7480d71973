import { DEFAULT_LIMITS, PolicyError, sqliteMessage } from "@forge/toolkit/validate";
import type { Authorizer } from "./authorizer.ts";
import { openSqlite, type Sqlite, type SqliteOptions } from "./sqlite.ts";

/** How long a statement waits for another process's lock before it fails, in milliseconds. */
export const BUSY_TIMEOUT_MS = 250;
/** The largest string or blob SQLite will build or return, in bytes (also caps memory per value). */
export const MAX_VALUE_BYTES: number = DEFAULT_LIMITS.maxResultBytes;
/**
 * The bounds and default of the cap on SQLite's memory, in MiB, for a whole
 * database process (`max_memory_mb` in the config; `PRAGMA hard_heap_limit`,
 * set by every open): past it a step fails with "out of memory" instead of
 * growing the process. A row SQLite builds can hold up to 2,000 columns of
 * {@linkcode MAX_VALUE_BYTES} each, and a sort or a temporary table is held in
 * memory too (see {@linkcode openDatabase}). Below the minimum a schema read
 * or a plain query could run out; above the maximum the cap no longer
 * protects a host.
 */
export const MEMORY_CAP_MB: { readonly min: number; readonly default: number; readonly max: number } = {
  min: 16,
  default: 256,
  max: 4_096,
};

/** Options of {@linkcode openDatabase}. */
export interface OpenDatabaseOptions {
  /**
   * The cap on SQLite's memory, in MiB. It holds for the whole process, and
   * SQLite only ever lowers it: a process keeps the smallest cap any of its
   * opens asked for, so a larger cap needs a new process.
   * @default {256}
   */
  maxMemoryMb?: number;
}

const RESTART = "restart the server with the flags from --print-permissions";

/**
 * The node:sqlite options of every connection:
 * integers as bigint, a short busy wait, foreign keys on, no double-quoted
 * string literals.
 *
 * @param writable Whether the connection may write.
 * @returns The options.
 */
export function connectionOptions(writable: boolean): SqliteOptions {
  return {
    readOnly: !writable,
    readBigInts: true,
    timeout: BUSY_TIMEOUT_MS,
    enableForeignKeyConstraints: true,
    enableDoubleQuotedStringLiterals: false,
  };
}

/**
 * Opens the database file: read-only (`readOnly: true`, so SQLite itself
 * refuses every write) or read-write for `execute`. Integers are read as
 * bigint (see values.ts), `ATTACH` is limited to zero databases, SQLite's
 * defensive mode is on, and no string or blob may exceed
 * {@linkcode MAX_VALUE_BYTES}. Temporary storage (a sort too big for the
 * cache, a materialized subquery, a temporary index) stays in memory
 * (`PRAGMA temp_store = MEMORY`) under the heap cap ({@linkcode MEMORY_CAP_MB}):
 * by default SQLite spills it to unlinked files in the temp folder, which
 * no Deno permission sees, so a read-only server could fill the disk.
 * Deno checks only this path: `--allow-read` for a read-only open,
 * `--allow-read` and `--allow-write` for read-write.
 *
 * @param path The database file (absolute).
 * @param writable Whether to open it read-write.
 * @param options The heap cap.
 * @returns The open connection.
 * @throws {RangeError} When the heap cap is not a whole number of MiB within {@linkcode MEMORY_CAP_MB}.
 * @throws {PolicyError} When Deno refuses the open (this process was not started with that access).
 */
export function openDatabase(path: string, writable: boolean, options: OpenDatabaseOptions = {}): Sqlite {
  const maxMemoryMb = options.maxMemoryMb ?? MEMORY_CAP_MB.default;
  if (!isMemoryCapMb(maxMemoryMb)) {
    throw new RangeError(
      `Cannot open the database: a heap cap of ${maxMemoryMb} MiB is not a whole number from ` +
        `${MEMORY_CAP_MB.min} to ${MEMORY_CAP_MB.max}`,
    );
  }
  let db: Sqlite;
  try {
    db = openSqlite(path, connectionOptions(writable));
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) throw err;
    throw new PolicyError(
      "no-permission",
      writable
        ? `Cannot execute: writing the database is outside what this process was started with (it was started read-only); ${RESTART}`
        : `Cannot open the database: reading it is outside what this process was started with; ${RESTART}`,
      { cause: err },
    );
  }
  db.enableDefensive(true);
  db.limits.attach = 0;
  db.limits.length = MAX_VALUE_BYTES;
  db.exec("PRAGMA temp_store = MEMORY");
  db.prepare(`PRAGMA hard_heap_limit = ${maxMemoryMb * 2 ** 20}`).get();
  return db;
}

/**
 * Whether `value` is a heap cap {@linkcode openDatabase} accepts: a whole
 * number of MiB within {@linkcode MEMORY_CAP_MB}.
 *
 * @param value The cap, in MiB.
 * @returns True when it is one.
 *
 * @example The bounds are included
 * ```ts
 * import { isMemoryCapMb } from "./connection.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isMemoryCapMb(16) && isMemoryCapMb(4096));
 * assert.ok(!isMemoryCapMb(8) && !isMemoryCapMb(32.5));
 * ```
 */
export function isMemoryCapMb(value: number): boolean {
  return Number.isInteger(value) && value >= MEMORY_CAP_MB.min && value <= MEMORY_CAP_MB.max;
}

/**
 * Runs `fn` with `authorizer` judging every statement `db` compiles, and
 * turns a refusal into a {@linkcode PolicyError} that says why.
 *
 * @param db The connection.
 * @param authorizer The judge.
 * @param action What is being done, for the message: `run query`, `execute`, …
 * @param fn The work; it must prepare and finish its statements inside.
 * @returns What `fn` returned.
 * @throws {PolicyError} When the authorizer refused, or SQLite failed (its first line is shown).
 */
export function withAuthorizer<T>(db: Sqlite, authorizer: Authorizer, action: string, fn: () => T): T {
  db.setAuthorizer(authorizer.callback);
  try {
    return fn();
  } catch (err) {
    if (authorizer.denied !== undefined) {
      throw new PolicyError("sql", `Cannot ${action}: ${authorizer.denied}`, { cause: err });
    }
    if (err instanceof PolicyError) throw err;
    if (!(err instanceof Error) || (err as { code?: string }).code === undefined) throw err;
    // SQLite's messages name tables and columns, never host paths (no ATTACH, no file functions).
    throw new PolicyError("sql", `Cannot ${action}: ${sqliteProblem(db, err)}`, { cause: err });
  } finally {
    db.setAuthorizer(null);
  }
}

// SQLITE_TOOBIG: a string or blob past the connection's length limit.
const SQLITE_TOOBIG = 18;

/**
 * The words for a statement SQLite failed on `db`: `sqliteMessage`'s, except
 * for a "string or blob too big" that loading the schema raised. SQLite
 * loads the schema before any statement that reads the database, under the
 * connection's length limit ({@linkcode MAX_VALUE_BYTES}), so one CREATE
 * statement in `sqlite_schema` past it fails every such statement with words
 * that point at the statement run, not at the file; this says what is wrong. It
 * tells the two apart by preparing a statement that reads nothing but the
 * schema: it fails the same way only when the schema is the cause.
 *
 * @param db The connection the statement failed on.
 * @param err What node:sqlite threw.
 * @returns The words, to follow `Cannot <action>: `.
 *
 * @example A value past the limit is SQLite's own message
 * ```ts
 * import { openDatabase, sqliteProblem } from "./connection.ts";
 * import assert from "node:assert/strict";
 *
 * const db = openDatabase(":memory:", false);
 * assert.throws(() => db.prepare("SELECT zeroblob(2000000)").get(), (err) => {
 *   assert.equal(sqliteProblem(db, err), "string or blob too big");
 *   return true;
 * });
 * db.close();
 * ```
 */
export function sqliteProblem(db: Sqlite, err: unknown): string {
  if ((err as { errcode?: unknown })?.errcode !== SQLITE_TOOBIG) return sqliteMessage(err);
  try {
    db.prepare("SELECT 1 FROM sqlite_schema LIMIT 0");
    return sqliteMessage(err);
  } catch (probe) {
    if ((probe as { errcode?: unknown })?.errcode !== SQLITE_TOOBIG) return sqliteMessage(err);
  }
  return `the database's schema holds a statement longer than ${MAX_VALUE_BYTES.toLocaleString("en-US")} bytes ` +
    "(SQLite's length limit here), so SQLite cannot load the schema and no statement that reads the database can run; " +
    "shorten or drop that CREATE statement with another tool (sqlite3 as the file's owner)";
}
