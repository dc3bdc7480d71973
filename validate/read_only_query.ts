import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { DEFAULT_LIMITS } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { type ReadPlan, readPlannedRows } from "./read_planned_rows.ts";
import { readOnlyStatement } from "./sql_guard.ts";
import { sqliteMessage } from "./sqlite_message.ts";
import { sqlUpperCase } from "./sql_tokens.ts";

/** Options of {@linkcode queryReadOnly} and {@linkcode planReadOnlyQuery}. */
export interface ReadOnlyQueryOptions {
  /**
   * Values bound to `?` (an array) or to `:name` / `@name` / `$name` (an object). Never interpolated.
   * @default {[]}
   */
  params?: readonly SQLInputValue[] | Readonly<Record<string, SQLInputValue>>;
  /**
   * The most rows returned; one more is read to know whether there were more.
   * @default {1000}
   */
  maxRows?: number;
  /**
   * The longest SQL accepted, in characters.
   * @default {100000}
   */
  maxLength?: number;
  /**
   * The most bytes of values returned: text counts its characters, a blob its
   * bytes, any other value its text, and each column one more. Rows past it
   * are never read.
   * @default {1048576}
   */
  maxBytes?: number;
}

/** Rows returned by {@linkcode queryReadOnly}. */
export interface ReadOnlyQueryResult {
  /** At most `maxRows` rows, as objects keyed by column name. */
  rows: Record<string, SQLInputValue>[];
  /** Whether more rows were left. */
  truncated: boolean;
  /** Which budget cut the rows, when they were cut. */
  limit?: "max_rows" | "max_bytes";
}

/**
 * Runs one read-only query with bound parameters: the SQL passes
 * {@linkcode assertReadOnlySql} first, parameters are bound by SQLite (never
 * spliced into the text), and rows are read one at a time against `maxRows`
 * and `maxBytes`, so no result can exhaust memory: a query of sixty 1 MiB
 * columns over a large table reads the sizes of its first rows, not the rows
 * (see {@linkcode readPlannedRows}). Open `db` with `{ readOnly: true }` too:
 * the guard is one layer, the read-only handle the other.
 *
 * A statement whose rows fit runs twice (once for sizes, once for values),
 * and a failure mid-query (malformed JSON, a blob too big, a locked
 * database…) is thrown, never shown as a shorter, complete result.
 *
 * @param db An open node:sqlite database, ideally read-only.
 * @param sql One read-only statement.
 * @param options Parameters and caps.
 * @returns The rows and whether, and why, they were cut.
 * @throws {PolicyError} When the SQL is refused, or SQLite rejects it (its message is shown).
 *
 * @example Query a read-only database
 * ```ts
 * import { queryReadOnly } from "@forge/toolkit/validate";
 * import { DatabaseSync } from "node:sqlite";
 * import assert from "node:assert/strict";
 *
 * const db = new DatabaseSync(":memory:");
 * db.exec("CREATE TABLE t(n INTEGER); INSERT INTO t VALUES (1), (2), (3)");
 * const result = queryReadOnly(db, "SELECT n FROM t WHERE n > ? ORDER BY n", { params: [1], maxRows: 1 });
 * assert.equal(result.rows.length, 1);
 * assert.equal(result.rows[0].n, 2);
 * assert.equal(result.truncated, true);
 * db.close();
 * ```
 */
export function queryReadOnly(db: DatabaseSync, sql: string, options: ReadOnlyQueryOptions = {}): ReadOnlyQueryResult {
  const plan = planReadOnlyQuery(db, sql, options);
  try {
    return readPlannedRows(db, plan);
  } catch (err) {
    throw sqlFailure(err);
  }
}

/**
 * The {@linkcode ReadPlan} of one read-only query, for {@linkcode readPlannedRows}
 * to run, here or in a Worker: the SQL passes {@linkcode assertReadOnlySql},
 * the statement is compiled once (nothing runs) for its column names, and
 * the sizing statement is built from them. Any authorizer set on `db` judges
 * that compilation.
 *
 * @param db The connection the plan is compiled on.
 * @param sql One read-only statement.
 * @param options Parameters and caps.
 * @returns The plan.
 * @throws {PolicyError} When the SQL is refused, or SQLite cannot compile it.
 *
 * @example Plan here, read elsewhere
 * ```ts
 * import { planReadOnlyQuery, readPlannedRows } from "@forge/toolkit/validate";
 * import { DatabaseSync } from "node:sqlite";
 * import assert from "node:assert/strict";
 *
 * const db = new DatabaseSync(":memory:");
 * const plan = planReadOnlyQuery(db, "SELECT 1 AS one", { maxRows: 10 });
 * assert.match(plan.sizing ?? "", /LIMIT 11$/);
 * assert.deepEqual(readPlannedRows(db, plan).rows.map((row) => row.one), [1]);
 * db.close();
 * ```
 */
export function planReadOnlyQuery(db: DatabaseSync, sql: string, options: ReadOnlyQueryOptions = {}): ReadPlan {
  const tokens = readOnlyStatement(sql, { maxLength: options.maxLength });
  const given = options.params ?? [];
  // Positional values spread; a named-parameter object goes first, as node:sqlite expects.
  const params = (Array.isArray(given) ? [...given] : [given]) as SQLInputValue[];
  const maxRows = options.maxRows ?? DEFAULT_LIMITS.maxRows;
  const maxBytes = options.maxBytes ?? DEFAULT_LIMITS.maxResultBytes;
  const head = sqlUpperCase(tokens[0].text);
  // A PRAGMA or EXPLAIN cannot be a subquery: no sizing statement; readPlannedRows() steps its rows against the budgets.
  if (head === "PRAGMA" || head === "EXPLAIN") return { sql, params, maxRows, maxBytes };
  const last = tokens[tokens.length - 1];
  // The statement's own text: no trailing `;`, and line breaks so that a trailing `--` comment ends.
  const text = sql.slice(tokens[0].start, last.start + last.text.length);
  let columns: string[];
  try {
    // Named as the subquery below names them: a trailing comment is part of an unnamed column's name in `sql`.
    columns = db.prepare(text).columns().map((column) => column.name);
  } catch (err) {
    throw sqlFailure(err);
  }
  // LIMIT -1 is no limit: what an unbounded maxRows (Infinity) asked for.
  const limit = Number.isFinite(maxRows) ? Math.max(0, Math.ceil(maxRows)) + 1 : -1;
  // The columns by position, under names of our own: SQLite matches a quoted name ignoring ASCII case, so
  // `length("A")` over columns `a` and `A` measured `a` twice and let the big one through unmeasured.
  const names = columns.map((_, i) => `c${i + 1}`);
  // Bytes, one reference to each column (a second would evaluate its expression again): length() of a text
  // counts only the characters before its first NUL, so a megabyte after one went uncounted.
  const sizes = names.map((name) => `coalesce(length(CAST(${name} AS BLOB)), 0)`);
  // The subquery's name is one the statement does not use: a table of its name read by the statement became a
  // reference to the subquery itself, and the sizing counted another result (or refused a recursion).
  const sized = unusedName(text);
  // A row's size in bytes: one per column and each value's length, built once for both runs.
  const rowSize = `${columns.length} + ${balancedSum(sizes)}`;
  const sizing = columns.length === 0
    ? `SELECT 0 AS n FROM (\n${text}\n) LIMIT ${limit}`
    : `WITH ${sized}(${names.join(", ")}) AS (\n${text}\n) SELECT ${rowSize} AS n FROM ${sized} LIMIT ${limit}`;
  const capped = columns.length === 0 || !Number.isFinite(maxBytes)
    ? undefined
    : cappedRun(text, columns, names, rowSize, sized, Math.max(0, Math.floor(maxBytes)));
  try {
    // Compiled here too, so that a name it cannot resolve fails now and an authorizer on `db` judges it.
    db.prepare(sizing);
    if (capped !== undefined) db.prepare(capped.sql);
  } catch (err) {
    throw sqlFailure(err);
  }
  return capped === undefined
    ? { sql, sizing, params, maxRows, maxBytes }
    : { sql, sizing, capped, params, maxRows, maxBytes };
}

/**
 * The second run of a query for readPlannedRows(): each row's size computed once, over the values it returns, and
 * every value replaced by `marker` when it passes `maxBytes`: the middle layer puts it in the row's last column, the
 * outer one in every other (a column of its own for the size would not fit a statement of SQLite's 2,000). Each layer
 * reads the one below through a subquery with an OFFSET, which SQLite never flattens into the query around it (its rule
 * 14): each expression is evaluated once, and what is measured is what is returned. The columns come back under their
 * own names, in order.
 */
function cappedRun(
  text: string,
  columns: readonly string[],
  names: readonly string[],
  rowSize: string,
  sized: string,
  maxBytes: number,
): { sql: string; marker: string } {
  // Made now, after the statement was written: no value of it can be this text but by chance.
  const marker = `forge:row past the budget:${crypto.randomUUID()}`;
  const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
  const last = names[names.length - 1];
  const middle = [
    ...names.slice(0, -1),
    `iif(${rowSize} <= ${maxBytes}, ${last}, '${marker}') AS ${last}`,
  ];
  const outer = names.map((name, i) =>
    `${name === last ? name : `iif(${last} IS '${marker}', '${marker}', ${name})`} AS ${quoted(columns[i])}`
  );
  return {
    sql: `WITH ${sized}(${names.join(", ")}) AS (SELECT * FROM (\n${text}\n) LIMIT -1 OFFSET 0) SELECT ${
      outer.join(", ")
    } FROM (SELECT ${middle.join(", ")} FROM ${sized} LIMIT -1 OFFSET 0)`,
    marker,
  };
}

/** `sized`, or `sized1`, `sized2`…: the first that does not occur in `text`, in any case (SQLite folds ASCII case). */
function unusedName(text: string): string {
  const folded = text.toLowerCase();
  let name = "sized";
  for (let n = 1; folded.includes(name); n++) name = `sized${n}`;
  return name;
}

/** `a + b + …` nested as a balanced tree: SQLite refuses expressions deeper than 1000, and results have up to 2000 columns. */
function balancedSum(terms: readonly string[]): string {
  if (terms.length === 0) return "0";
  if (terms.length === 1) return terms[0];
  const half = Math.ceil(terms.length / 2);
  return `(${balancedSum(terms.slice(0, half))} + ${balancedSum(terms.slice(half))})`;
}

function sqlFailure(err: unknown): PolicyError {
  if (err instanceof PolicyError) return err;
  return new PolicyError("sql", `Cannot run query: ${sqliteMessage(err)}`, { cause: err });
}
