import type { DatabaseSync, SQLInputValue } from "node:sqlite";
import { capRows } from "./limits.ts";
import { DEFAULT_LIMITS } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { readOnlyStatement } from "./sql_guard.ts";
import type { SqlToken } from "./sql_tokens.ts";

/** Options of {@linkcode queryReadOnly}. */
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
}

/** Rows returned by {@linkcode queryReadOnly}. */
export interface ReadOnlyQueryResult {
  /** At most `maxRows` rows, as objects keyed by column name. */
  rows: Record<string, SQLInputValue>[];
  /** Whether more rows were left. */
  truncated: boolean;
}

/**
 * Runs one read-only query with bound parameters: the SQL passes
 * {@linkcode assertReadOnlySql} first, parameters are bound by SQLite (never
 * spliced into the text), and rows stop at `maxRows`. Open `db` with
 * `{ readOnly: true }` too: the guard is one layer, the read-only handle the
 * other.
 *
 * A result that was not cut is confirmed before it is returned: in Deno
 * 2.9.6, node:sqlite's `iterate()` ends as if the rows were done when SQLite
 * fails mid-query (malformed JSON, a blob too big, a locked database…), and
 * a failure must never look like a shorter, complete result. The statement
 * runs again through `all()`, which throws, wrapped as
 * `SELECT * FROM (…) LIMIT maxRows + 1` so that the second run is capped
 * too, even when it would return more rows than the first (another writer
 * in between, `random()`). The cost: a query whose rows all fit runs twice.
 *
 * @param db An open node:sqlite database, ideally read-only.
 * @param sql One read-only statement.
 * @param options Parameters and caps.
 * @returns The rows and whether they were cut.
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
  const tokens = readOnlyStatement(sql, { maxLength: options.maxLength });
  const params = options.params ?? [];
  const maxRows = options.maxRows ?? DEFAULT_LIMITS.maxRows;
  try {
    const statement = db.prepare(sql);
    // Positional values spread; a named-parameter object goes first, as node:sqlite expects.
    const bound = (Array.isArray(params) ? params : [params]) as SQLInputValue[];
    const capped = capRows(statement.iterate(...bound) as Iterable<Record<string, SQLInputValue>>, maxRows);
    // Rows read before maxRows + 1 was reached came before any failure: they stand.
    if (capped.truncated) return { rows: capped.rows, truncated: true };
    // iterate() may have stopped on an error it swallowed; all() throws it.
    db.prepare(confirming(sql, tokens, maxRows)).all(...bound);
    return { rows: capped.rows, truncated: false };
  } catch (err) {
    // SQLite's own messages name tables and columns, not host paths.
    const message = err instanceof Error ? err.message.split("\n")[0].slice(0, 200) : "query failed";
    throw new PolicyError("sql", `Cannot run query: ${message}`, { cause: err });
  }
}

/**
 * The statement again, capped at `maxRows + 1` rows. A PRAGMA or EXPLAIN
 * cannot be a subquery, and its output is bounded by the schema or the
 * statement itself, so it runs as it is.
 */
function confirming(sql: string, tokens: readonly SqlToken[], maxRows: number): string {
  const head = tokens[0].text.toUpperCase();
  if (head === "PRAGMA" || head === "EXPLAIN") return sql;
  const last = tokens[tokens.length - 1];
  // The statement's own text: no trailing `;`, and line breaks so that a trailing `--` comment ends.
  const text = sql.slice(tokens[0].start, last.start + last.text.length);
  // LIMIT -1 is no limit: what an unbounded maxRows (Infinity) asked for.
  const limit = Number.isFinite(maxRows) ? Math.max(0, Math.ceil(maxRows)) + 1 : -1;
  return `SELECT * FROM (\n${text}\n) LIMIT ${limit}`;
}
