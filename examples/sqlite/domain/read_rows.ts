import type { SQLInputValue } from "node:sqlite";
import {
  PolicyError,
  queryReadOnly,
  type ReadOnlyQueryOptions,
  type ReadOnlyQueryResult,
} from "@forge/toolkit/validate";
import type { Sqlite } from "./_sqlite.ts";

/**
 * {@linkcode queryReadOnly}, made honest about errors. In Deno 2.9.6,
 * node:sqlite's `iterate()` ends as if the rows were done when SQLite fails
 * mid-query ("malformed JSON", "string or blob too big", "database is
 * locked"…), so a failed query would look like a complete, shorter result.
 * A result cut at `maxRows` got its rows before any failure and stands; a
 * result that was not cut is confirmed by running the statement again with
 * `all()`, which does throw (and, having seen at most `maxRows` rows the
 * first time, reads no more than that unless the failure was transient).
 * The cost: a query whose rows all fit runs twice.
 *
 * @param db A read-only connection, its authorizer set by the caller.
 * @param sql One read-only statement.
 * @param options Parameters and caps, as for `queryReadOnly`.
 * @returns The rows and whether they were cut.
 * @throws {PolicyError} When the SQL is refused or SQLite fails.
 */
export function readRows(db: Sqlite, sql: string, options: ReadOnlyQueryOptions): ReadOnlyQueryResult {
  const first = queryReadOnly(db, sql, options);
  if (first.truncated) return first;
  const maxRows = options.maxRows ?? 1000;
  const params = options.params ?? [];
  let rows: Record<string, SQLInputValue>[];
  try {
    const statement = db.prepare(sql);
    rows = (Array.isArray(params)
      ? statement.all(...(params as SQLInputValue[]))
      : statement.all(params as Record<string, SQLInputValue>)) as Record<string, SQLInputValue>[];
  } catch (err) {
    const message = err instanceof Error ? err.message.split("\n")[0].slice(0, 200) : "query failed";
    throw new PolicyError("sql", `Cannot run query: ${message}`, { cause: err });
  }
  return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
}
