// Deno 2.9.6 runs a node:sqlite that has setAuthorizer(), limits,
// enableDefensive(), the readBigInts option and the authorizer constants, but
// its bundled type definitions predate them. This file types exactly those
// and fails at load if the runtime lacks one (deno_facts_test.ts pins them).
import { constants as runtime, DatabaseSync, type DatabaseSyncOptions } from "node:sqlite";

/** An authorizer callback: action code, two arguments, database name, trigger or view. */
export type AuthorizerCallback = (
  action: number,
  arg1: string | null,
  arg2: string | null,
  database: string | null,
  trigger: string | null,
) => number;

/** A node:sqlite connection with the APIs the bundled types leave out. */
export type Sqlite = DatabaseSync & {
  /** Sets (or with null clears) the authorizer every later prepare consults. */
  setAuthorizer(callback: AuthorizerCallback | null): void;
  /** Turns SQLite's defensive mode on or off. */
  enableDefensive(on: boolean): void;
  /** SQLite's run-time limits of this connection. */
  readonly limits: { attach: number; length: number; sqlLength: number };
};

/** Options of {@linkcode openSqlite}: the bundled ones and `readBigInts`. */
export type SqliteOptions = DatabaseSyncOptions & { readBigInts?: boolean };

const NAMES = [
  "OK",
  "DENY",
  "SELECT",
  "READ",
  "FUNCTION",
  "RECURSIVE",
  "PRAGMA",
  "REINDEX",
  "INSERT",
  "UPDATE",
  "DELETE",
  "CREATE_TABLE",
  "DROP_TABLE",
  "CREATE_VIEW",
  "DROP_VIEW",
  "CREATE_INDEX",
  "DROP_INDEX",
  "ALTER_TABLE",
  "DROP_TRIGGER",
] as const;

/** The authorizer's result and action codes, by name without the `SQLITE_` prefix. */
export const AUTH: Readonly<Record<(typeof NAMES)[number], number>> = Object.freeze(
  Object.fromEntries(NAMES.map((name) => {
    const value = (runtime as Record<string, unknown>)[`SQLITE_${name}`];
    if (typeof value !== "number") throw new TypeError(`Cannot use node:sqlite: constants.SQLITE_${name} is missing`);
    return [name, value];
  })) as Record<(typeof NAMES)[number], number>,
);

/**
 * Opens a connection, typed with the APIs above.
 *
 * @param path The database file.
 * @param options node:sqlite's options.
 * @returns The connection.
 */
export function openSqlite(path: string, options: SqliteOptions): Sqlite {
  return new DatabaseSync(path, options) as Sqlite;
}
