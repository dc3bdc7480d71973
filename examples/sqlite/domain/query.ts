import type { Sqlite } from "./sqlite.ts";
import {
  assertReadOnlySql,
  DEFAULT_LIMITS,
  type PlannedRows,
  planReadOnlyQuery,
  PolicyError,
  quote,
  readPlannedRows,
} from "@forge/toolkit/validate";
import { tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
import { assertAffordable, explainQueryPlan, queryCost } from "./query_cost.ts";
import { DatabaseSizes, PRICING_PRAGMAS } from "./database_sizes.ts";
import { contentViewCost } from "./content_views.ts";
import { Authorizer } from "./authorizer.ts";
import { sqliteProblem, withAuthorizer } from "./connection.ts";
import { type JsonValue, type SqlParams, toJsonValue } from "./values.ts";

/**
 * The PRAGMAs SQLite's full-text modules run themselves, bare, when a query
 * reads their tables: FTS5 `PRAGMA "main".data_version` (a counter of other
 * connections' commits) to know whether its cached config is stale, and
 * FTS3/FTS4 `PRAGMA "main".page_size`. Both only read a number; every other
 * statement the modules run (their shadow tables, an external content table
 * or view) is judged as the query's own reads are.
 */
export const FULL_TEXT_PRAGMAS: readonly string[] = Object.freeze(["data_version", "page_size"]);

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
   * The most rows counted to price the query (see `DatabaseSizes.refresh`); a table past them is priced at
   * `maxScanRows + 1`.
   * @default {Infinity}
   */
  maxCountRows?: number;
  /**
   * The most bytes of JSON returned, the column names' and the rows'; rows past it are left out and the result says
   * so, and a query whose column names alone pass it is refused.
   * @default {1048576}
   */
  maxBytes?: number;
  /**
   * The sizes prices are made of, kept between queries on one connection.
   * @default {new DatabaseSizes(db), counted afresh}
   */
  sizes?: DatabaseSizes;
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
 * Runs one read-only query: {@linkcode assertReadOnlySql} on the text; then
 * SQLite compiles it, and the sizing statement `planReadOnlyQuery` wraps
 * around it, under an authorizer that judges what it compiles to (reads
 * only, no file functions or non-schema PRAGMAs, recursion only when
 * allowed); then, with `maxScanRows`, its plan is priced (`queryCost`, and
 * the content views of the full-text tables it reads: `contentViewCost`) and
 * refused when too dear, its counts under a read-mode authorizer too (no
 * virtual table is counted); then `readPlannedRows` reads rows one at a time
 * against `maxRows` and `maxBytes` (the column names' JSON counts against
 * it too, and a query whose names alone pass it is refused before it runs),
 * under the same authorizer, and
 * {@linkcode encodeRows} makes them JSON. Open `db` read-only (see
 * `openDatabase`): that is the third check. Compiling alone can take
 * SQLite minutes, so the server runs this in its database process (see
 * `DatabaseProcesses`), never on the thread that reads its stdin.
 *
 * @param db A connection from `openDatabase(path, false)`.
 * @param sql One read-only statement.
 * @param options Parameters and limits.
 * @returns The columns, rows and truncation flag.
 * @throws {PolicyError} When the SQL is refused, too dear, or SQLite rejects it.
 */
export function runQuery(db: Sqlite, sql: string, options: QueryOptions): QueryResult {
  assertReadOnlySql(sql, { maxLength: options.maxSqlLength });
  // A full-text table's module runs statements of its own through this connection, judged by this authorizer too.
  const authorizer = new Authorizer({
    mode: "read",
    allowRecursive: options.allowRecursive,
    pragmas: FULL_TEXT_PRAGMAS,
  });
  const { columns, plan, explained } = withAuthorizer(db, authorizer, "run query", () => {
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
    const maxBytes = options.maxBytes ?? DEFAULT_LIMITS.maxResultBytes;
    // The names are part of the reply as much as the rows are, and a file's column can be named with megabytes.
    const namesBytes = jsonBytes(columns);
    if (namesBytes > maxBytes) {
      const count = (n: number) => n.toLocaleString("en-US");
      throw new PolicyError(
        "too-large",
        `Cannot run query: its column names take ${count(namesBytes)} bytes of JSON, more than the ` +
          `${count(maxBytes)} a result may hold; select fewer columns, or give long names short aliases (AS a)`,
      );
    }
    const plan = planReadOnlyQuery(db, sql, {
      params: options.params,
      maxRows: options.maxRows,
      maxLength: options.maxSqlLength,
      maxBytes,
    });
    // PRAGMA and EXPLAIN have no sizing statement and no loops to price.
    const priced = options.maxScanRows !== undefined && plan.sizing !== undefined;
    return { columns, plan, explained: priced ? explainQueryPlan(db, `${statementText(sql)}\n`) : undefined };
  });
  if (explained !== undefined && options.maxScanRows !== undefined) {
    const maxScanRows = options.maxScanRows;
    const sizes = options.sizes ?? new DatabaseSizes(db);
    // Counting runs what the file defines too (a table's module, the views it reads): it is judged as the query is.
    const pricing = new Authorizer({ mode: "read", allowRecursive: options.allowRecursive, pragmas: PRICING_PRAGMAS });
    const cost = withAuthorizer(db, pricing, "run query", () => {
      // The first reads of the file (a hot journal is met here, before any row is read).
      sizes.refresh(maxScanRows + 1, options.maxCountRows);
      // Only the views the statement reads, and no more of their SQL than a bound: a file can hold gigabytes of it.
      const views = sizes.viewSql(authorizer.reads);
      return queryCost(explained, tokenizeSql(sql), sizes, { views, reads: authorizer.reads });
    });
    assertAffordable(cost, maxScanRows);
    // A full-text table's content view runs by its module's SQL, which the plan does not show: priced on its own (a
    // view a full-text table reads compiles under this authorizer; its module's PRAGMAs may run there too).
    const contentPricing = new Authorizer({
      mode: "read",
      allowRecursive: options.allowRecursive,
      pragmas: [...new Set([...PRICING_PRAGMAS, ...FULL_TEXT_PRAGMAS])],
    });
    const content = withAuthorizer(
      db,
      contentPricing,
      "run query",
      () => contentViewCost(db, authorizer.reads, sizes, { pricing: contentPricing, cap: maxScanRows + 1 }),
    );
    if (content.length > 0) assertAffordable([...cost, ...content], maxScanRows);
  }
  const found = withAuthorizer(db, authorizer, "run query", () => {
    try {
      return readPlannedRows(db, plan);
    } catch (err) {
      if (authorizer.denied !== undefined || !(err instanceof Error)) throw err;
      throw new PolicyError("sql", `Cannot run query: ${sqliteProblem(db, err)}`, { cause: err });
    }
  });
  return encodeRows(columns, found, plan.maxBytes);
}

/** The statement's own text: no trailing `;` or comment after it. */
function statementText(sql: string): string {
  const tokens = tokenizeSql(sql).filter((token) => token.kind !== "semicolon");
  const last = tokens[tokens.length - 1];
  return sql.slice(tokens[0].start, last.start + last.text.length);
}

/**
 * Rows as the tool returns them: each value through `toJsonValue`, and cut
 * again where their JSON, after the column names' JSON, passes `maxBytes`
 * (the read's budget counts characters; JSON escapes and base64 take more).
 *
 * @param columns The column names, in order.
 * @param found What the read returned.
 * @param maxBytes The most bytes of JSON: the column names' and the rows'.
 * @returns The result.
 */
export function encodeRows(columns: string[], found: PlannedRows, maxBytes: number): QueryResult {
  const rows: Record<string, JsonValue>[] = [];
  let bytes = jsonBytes(columns);
  for (const row of found.rows) {
    const out: Record<string, JsonValue> = {};
    for (const name of columns) out[name] = toJsonValue(row[name] as Parameters<typeof toJsonValue>[0]);
    bytes += jsonBytes(out) + 1;
    if (bytes > maxBytes) return { columns, rows, row_count: rows.length, truncated: true, limit: "max_bytes" };
    rows.push(out);
  }
  return found.limit === undefined
    ? { columns, rows, row_count: rows.length, truncated: false }
    : { columns, rows, row_count: rows.length, truncated: true, limit: found.limit };
}

/** The bytes of `value`'s JSON, as UTF-8. */
function jsonBytes(value: unknown): number {
  return new TextEncoder().encode(JSON.stringify(value)).length;
}
