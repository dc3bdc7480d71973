import type { Sqlite } from "./_sqlite.ts";
import { assertReadOnlySql, DEFAULT_LIMITS, PolicyError, queryReadOnly } from "@forge/toolkit/validate";
import { Authorizer } from "./authorizer.ts";
import { withAuthorizer } from "./connection.ts";
import { quoted } from "./write_pattern.ts";
import { type JsonValue, type SqlParams, toJsonValue } from "./values.ts";

/** Options of {@linkcode runQuery}. */
export interface QueryOptions {
  /**
   * Values bound to the placeholders.
   * @default {[]}
   */
  params?: SqlParams;
  /** The most rows returned. */
  maxRows: number;
  /** The longest SQL accepted, in characters. */
  maxSqlLength: number;
  /** Whether `WITH RECURSIVE` may run. */
  allowRecursive: boolean;
  /**
   * The most bytes of row JSON returned; rows past it are left out and the result says so.
   * @default {1048576}
   */
  maxBytes?: number;
}

/** The rows of a query, as JSON. */
export interface QueryResult {
  /** The result's column names, in order. */
  columns: string[];
  /** The rows, each keyed by column name (values: see `toJsonValue`). */
  rows: Record<string, JsonValue>[];
  /** How many rows are in `rows`. */
  row_count: number;
  /** Whether there were more rows than returned. */
  truncated: boolean;
  /** Which limit cut the rows, when they were cut. */
  limit?: "max_rows" | "max_bytes";
}

/**
 * Runs one read-only query: {@linkcode assertReadOnlySql} on the text,
 * SQLite's authorizer on what it compiles to (reads only, no file functions
 * or non-schema PRAGMAs, recursion only when allowed), then
 * `queryReadOnly` (which confirms a complete result with a second read) with
 * the parameters bound and rows stopped at `maxRows` (it steps no further). Open `db` read-only (see `openDatabase`):
 * that is the third check.
 *
 * node:sqlite is synchronous: while SQLite works on one statement nothing
 * else in the process runs, and no deadline can stop it. `maxRows` bounds
 * the rows stepped, not the work one step can take (a sort or aggregate over
 * a huge join). See README, "Limits".
 *
 * @param db A connection from `openDatabase(path, false)`.
 * @param sql One read-only statement.
 * @param options Parameters and limits.
 * @returns The columns, rows and truncation flag.
 * @throws {PolicyError} When the SQL is refused, or SQLite rejects it.
 */
export function runQuery(db: Sqlite, sql: string, options: QueryOptions): QueryResult {
  assertReadOnlySql(sql, { maxLength: options.maxSqlLength });
  const authorizer = new Authorizer({ mode: "read", allowRecursive: options.allowRecursive });
  return withAuthorizer(db, authorizer, "run query", () => {
    const columns = db.prepare(sql).columns().map((column) => column.name);
    const seen = new Set<string>();
    for (const name of columns) {
      if (seen.has(name)) {
        throw new PolicyError(
          "sql",
          `Cannot run query: column ${quoted(name)} appears twice; give each one its own alias`,
        );
      }
      seen.add(name);
    }
    const found = queryReadOnly(db, sql, {
      params: options.params,
      maxRows: options.maxRows,
      maxLength: options.maxSqlLength,
    });
    return encode(columns, found.rows, found.truncated, options.maxBytes ?? DEFAULT_LIMITS.maxResultBytes);
  });
}

function encode(columns: string[], found: Record<string, unknown>[], cut: boolean, maxBytes: number): QueryResult {
  const encoder = new TextEncoder();
  const rows: Record<string, JsonValue>[] = [];
  let bytes = 0;
  for (const row of found) {
    const out: Record<string, JsonValue> = {};
    for (const name of columns) out[name] = toJsonValue(row[name] as Parameters<typeof toJsonValue>[0]);
    bytes += encoder.encode(JSON.stringify(out)).length + 1;
    if (bytes > maxBytes) return { columns, rows, row_count: rows.length, truncated: true, limit: "max_bytes" };
    rows.push(out);
  }
  return cut
    ? { columns, rows, row_count: rows.length, truncated: true, limit: "max_rows" }
    : { columns, rows, row_count: rows.length, truncated: false };
}
