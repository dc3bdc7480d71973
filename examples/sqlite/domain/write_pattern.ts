import { PolicyError, quote } from "@forge/toolkit/validate";
import { sqlLowerCase } from "@forge/toolkit/validate/sql-tokens";

/** What a write does to a table: add rows, change rows, remove rows, or change its schema. */
export type WriteKind = "insert" | "update" | "delete" | "ddl";

// A name that is safe inside a pattern (no ":" or "*" a host's matcher would
// read) and needs no quoting; SQLite compares such names without regard to case.
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * The permission pattern of one kind of write to one table:
 * `sql:<kind>:<table>`, the table name in lower case (SQLite compares names
 * without regard to ASCII case, so `Users` and `users` are one table).
 *
 * @param kind What the write does.
 * @param table The table (for an index: the table it belongs to).
 * @returns The pattern, e.g. `sql:insert:users`.
 * @throws {PolicyError} When the name is not a plain identifier or names one of SQLite's own tables.
 */
export function writePattern(kind: WriteKind, table: string): string {
  if (!PLAIN_NAME.test(table)) {
    throw new PolicyError(
      "sql",
      `Cannot execute: table ${quote(table)} cannot be named in a permission pattern; ` +
        `only tables named with letters, digits and "_" (not starting with a digit) can be changed`,
    );
  }
  if (sqlLowerCase(table).startsWith("sqlite_")) {
    throw new PolicyError("sql", `Cannot execute: ${quote(table)} is one of SQLite's own tables`);
  }
  return `sql:${kind}:${sqlLowerCase(table)}`;
}
