import type { Sqlite } from "./_sqlite.ts";
import {
  assertReadOnlySql,
  DEFAULT_LIMITS,
  type PlannedRows,
  planReadOnlyQuery,
  PolicyError,
  quote,
  type ReadPlan,
  readPlannedRows,
  tokenizeSql,
} from "@forge/toolkit/validate";
import type { ThreadCost } from "./_query_worker.ts";
import { queryCost, VIRTUAL_ROWS } from "./query_cost.ts";
import { Authorizer } from "./authorizer.ts";
import { withAuthorizer } from "./connection.ts";
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
   * The most rows the loops of its plan may visit (see `queryCost`); no price check when absent.
   * @default {undefined}
   */
  maxScanRows?: number;
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

/** A query compiled and judged on the main thread, ready to run on a query thread. */
export interface PlannedQuery {
  /** The result's column names, in order. */
  columns: string[];
  /** What the thread reads. */
  plan: ReadPlan;
  /** Every authorizer call SQLite made compiling the plan, all approved, as JSON arrays: the thread allows only these. */
  approved: string[];
  /** The price check for the thread, when `maxScanRows` was given and the statement is a SELECT or WITH. */
  cost?: ThreadCost;
}

/**
 * Compiles one read-only query and judges it, running nothing:
 * {@linkcode assertReadOnlySql} on the text, then SQLite's authorizer on
 * what it compiles to (reads only, no file functions or non-schema PRAGMAs,
 * recursion only when allowed), for the statement and for the sizing
 * statement `planReadOnlyQuery` wraps around it. The authorizer calls it
 * approved go with the plan, so a thread that compiles it again (its own
 * connection) allows exactly those: a schema change in between is refused,
 * not judged anew.
 *
 * @param db A connection from `openDatabase(path, false)`.
 * @param sql One read-only statement.
 * @param options Parameters and limits.
 * @returns The columns, the plan and the approved authorizer calls.
 * @throws {PolicyError} When the SQL is refused, or SQLite rejects it.
 */
export function planQuery(db: Sqlite, sql: string, options: QueryOptions): PlannedQuery {
  assertReadOnlySql(sql, { maxLength: options.maxSqlLength });
  const authorizer = new Authorizer({ mode: "read", allowRecursive: options.allowRecursive });
  return withAuthorizer(db, authorizer, "run query", () => {
    const columns = db.prepare(sql).columns().map((column) => column.name);
    const seen = new Set<string>();
    for (const name of columns) {
      if (seen.has(name)) {
        throw new PolicyError(
          "sql",
          `Cannot run query: column ${quote(name)} appears twice; give each one its own alias`,
        );
      }
      seen.add(name);
    }
    const plan = planReadOnlyQuery(db, sql, {
      params: options.params,
      maxRows: options.maxRows,
      maxLength: options.maxSqlLength,
      maxBytes: options.maxBytes ?? DEFAULT_LIMITS.maxResultBytes,
    });
    const approved = [...authorizer.approved];
    const tokens = tokenizeSql(sql).filter((token) => token.kind !== "semicolon");
    if (options.maxScanRows === undefined || plan.sizing === undefined) return { columns, plan, approved };
    const text = sql.slice(tokens[0].start, tokens[tokens.length - 1].start + tokens[tokens.length - 1].text.length);
    const { nests } = queryCost(db, `${text}\n`, tokens);
    return { columns, plan, approved, cost: { nests, maxScanRows: options.maxScanRows, virtualRows: VIRTUAL_ROWS } };
  });
}

/**
 * Runs one read-only query on this thread: {@linkcode planQuery}, then
 * `readPlannedRows` (rows one at a time against `maxRows` and `maxBytes`),
 * then {@linkcode encodeRows}. Open `db` read-only (see `openDatabase`):
 * that is the third check. The server runs queries on a query thread
 * instead (see `QueryThreads`), so that a deadline can answer; this is the
 * same work, for tests and for callers without a deadline.
 *
 * @param db A connection from `openDatabase(path, false)`.
 * @param sql One read-only statement.
 * @param options Parameters and limits.
 * @returns The columns, rows and truncation flag.
 * @throws {PolicyError} When the SQL is refused, or SQLite rejects it.
 */
export function runQuery(db: Sqlite, sql: string, options: QueryOptions): QueryResult {
  const { columns, plan } = planQuery(db, sql, options);
  const authorizer = new Authorizer({ mode: "read", allowRecursive: options.allowRecursive });
  const found = withAuthorizer(db, authorizer, "run query", () => {
    try {
      return readPlannedRows(db, plan);
    } catch (err) {
      if (authorizer.denied !== undefined || !(err instanceof Error)) throw err;
      throw new PolicyError("sql", `Cannot run query: ${err.message.split("\n")[0].slice(0, 200)}`, { cause: err });
    }
  });
  return encodeRows(columns, found, plan.maxBytes);
}

/**
 * Rows as the tool returns them: each value through `toJsonValue`, and cut
 * again where their JSON passes `maxBytes` (the thread's budget counts
 * characters; JSON escapes and base64 take more).
 *
 * @param columns The column names, in order.
 * @param found What the read returned.
 * @param maxBytes The most bytes of row JSON.
 * @returns The result.
 */
export function encodeRows(columns: string[], found: PlannedRows, maxBytes: number): QueryResult {
  const encoder = new TextEncoder();
  const rows: Record<string, JsonValue>[] = [];
  let bytes = 0;
  for (const row of found.rows) {
    const out: Record<string, JsonValue> = {};
    for (const name of columns) out[name] = toJsonValue(row[name] as Parameters<typeof toJsonValue>[0]);
    bytes += encoder.encode(JSON.stringify(out)).length + 1;
    if (bytes > maxBytes) return { columns, rows, row_count: rows.length, truncated: true, limit: "max_bytes" };
    rows.push(out);
  }
  return found.limit === undefined
    ? { columns, rows, row_count: rows.length, truncated: false }
    : { columns, rows, row_count: rows.length, truncated: true, limit: found.limit };
}
