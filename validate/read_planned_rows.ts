import type { DatabaseSync, SQLInputValue } from "node:sqlite";

/** What {@linkcode readPlannedRows} runs: made by `planReadOnlyQuery` after the SQL guard accepted the text. */
export interface ReadPlan {
  /** The statement as given. */
  sql: string;
  /**
   * The same statement wrapped to return one number per row, the row's size
   * (`SELECT <sum of length()> AS n FROM (…) LIMIT maxRows + 1`), so rows can
   * be counted against the byte budget before a single value is read.
   * Absent for `PRAGMA` and `EXPLAIN`, which cannot be wrapped: their rows are stepped one at a time instead.
   */
  sizing?: string;
  /**
   * The statement run a second time for the rows that fit, its columns as
   * the statement names them, each row measured once over the values it
   * returns: a row larger than `maxBytes` comes back with `marker` (a text
   * made for this plan) in place of every value, so a row that grew between
   * the two runs (`random()`, another writer) never reaches JavaScript whole.
   * Absent without `sizing`, or when `maxBytes` is unbounded: the statement
   * itself runs again.
   */
  capped?: { sql: string; marker: string };
  /** The bound values, as node:sqlite's `all()` / `iterate()` take them (a named-parameter object is one element). */
  params: SQLInputValue[];
  /** The most rows returned. */
  maxRows: number;
  /** The most bytes of values returned (text in characters, blobs in bytes, plus one per column). */
  maxBytes: number;
}

/** Rows read by {@linkcode readPlannedRows}. */
export interface PlannedRows {
  /** The rows, in order, keyed by column name. */
  rows: Record<string, SQLInputValue>[];
  /** Whether rows were left out. */
  truncated: boolean;
  /** Which budget left them out, when some were. */
  limit?: "max_rows" | "max_bytes";
}

/**
 * Reads the rows of a {@linkcode ReadPlan} one at a time against its row and
 * byte budgets, so that no result can exhaust memory. First the sizing
 * statement counts how many rows fit, reading numbers only; then the
 * statement itself is stepped for exactly those rows, each one measured
 * again as it arrives (a statement may return different rows on its second
 * run: `random()`, another writer). At most one row past the budget is ever
 * held, and none when both runs agree; with the plan's `capped` statement,
 * a row larger than the whole budget arrives with its values left out by
 * SQLite, so what is held is at most the budget and one row within it.
 *
 * In Deno 2.9.6 node:sqlite's `iterate()` ends as if the rows were done when
 * SQLite fails mid-query, so a run that was not cut is confirmed through
 * `all()` on the sizing statement, which throws the failure (its rows are
 * single numbers, at most `maxRows + 1`).
 *
 * This function refers to nothing outside its own body: `String(readPlannedRows)`
 * runs as it is in a Worker made from a Blob, which needs no read permission
 * for module files.
 *
 * @param db The connection, ideally read-only, with any authorizer already set.
 * @param plan What to run and the budgets.
 * @param cancelled Asked before each row; when it answers true the read stops with an `AbortError`.
 * @returns The rows and whether, and why, they were cut.
 * @throws {Error} SQLite's error when the statement fails, or when its second run returns fewer rows than its first.
 * @throws {DOMException} An `AbortError` when `cancelled()` answered true.
 *
 * @example Stop at a byte budget before reading the big rows
 * ```ts
 * import { readPlannedRows } from "@forge/toolkit/validate";
 * import { DatabaseSync } from "node:sqlite";
 * import assert from "node:assert/strict";
 *
 * const db = new DatabaseSync(":memory:");
 * const sql = "SELECT printf('%.*c', 600, 'x') AS s FROM (SELECT 1 UNION ALL SELECT 2)";
 * const sizing = `SELECT 1 + coalesce(length("s"), 0) AS n FROM (${sql}) LIMIT 11`;
 * const read = readPlannedRows(db, { sql, sizing, params: [], maxRows: 10, maxBytes: 1000 });
 * assert.equal(read.rows.length, 1);
 * assert.equal(read.limit, "max_bytes");
 * db.close();
 * ```
 */
export function readPlannedRows(db: DatabaseSync, plan: ReadPlan, cancelled: () => boolean = () => false): PlannedRows {
  type Row = Record<string, SQLInputValue>;
  const check = (): void => {
    if (cancelled()) throw new DOMException("Cannot read rows: the read was cancelled", "AbortError");
  };
  const sizeOf = (row: Row): number => {
    let size = 0;
    for (const key in row) {
      const value = row[key];
      size += 1 +
        (value === null
          ? 0
          : typeof value === "string"
          ? value.length
          : value instanceof Uint8Array
          ? value.byteLength
          : String(value).length);
    }
    return size;
  };
  const { params, maxRows, maxBytes } = plan;
  let cut: "max_rows" | "max_bytes" | undefined;
  if (plan.sizing === undefined) {
    // PRAGMA and EXPLAIN: stepped a row at a time, as their output can be large (the EXPLAIN of a 1 KB statement
    // listed 589,837 instructions, 385 MiB of objects read whole); not wrapped, they have no sizing statement.
    const rows: Row[] = [];
    let bytes = 0;
    for (const row of db.prepare(plan.sql).iterate(...params) as Iterable<Row>) {
      check();
      if (rows.length >= maxRows) cut = "max_rows";
      else if ((bytes += sizeOf(row)) > maxBytes) cut = "max_bytes";
      if (cut !== undefined) return { rows, truncated: true, limit: cut };
      rows.push(row);
    }
    // iterate() may have ended on a failure it swallowed: all() runs the statement again to throw it, over no more
    // rows than were just read (these statements return the same rows every run).
    db.prepare(plan.sql).all(...params);
    return { rows, truncated: false };
  }
  let fit = 0;
  let total = 0;
  for (const row of db.prepare(plan.sizing).iterate(...params) as Iterable<{ n: number | bigint | null }>) {
    check();
    if (fit >= maxRows) cut = "max_rows";
    else if ((total += Number(row.n ?? 0)) > maxBytes) cut = "max_bytes";
    if (cut !== undefined) break;
    fit++;
  }
  // iterate() may have ended on a failure it swallowed: all() throws it.
  if (cut === undefined) db.prepare(plan.sizing).all(...params);
  const rows: Row[] = [];
  if (fit === 0) return cut === undefined ? { rows, truncated: false } : { rows, truncated: true, limit: cut };
  let bytes = 0;
  const capped = plan.capped;
  for (const row of db.prepare(capped?.sql ?? plan.sql).iterate(...params) as Iterable<Row>) {
    check();
    if (capped !== undefined) {
      // SQLite put the marker in place of every value of a row larger than the whole budget: the first tells.
      let over = false;
      for (const key in row) {
        over = row[key] === capped.marker;
        break;
      }
      if (over) {
        cut = "max_bytes";
        break;
      }
    }
    if ((bytes += sizeOf(row)) > maxBytes) {
      cut = "max_bytes";
      break;
    }
    rows.push(row);
    if (rows.length === fit) break;
  }
  if (rows.length < fit && cut === undefined) {
    throw new Error("the query returned fewer rows on its second run than on its first");
  }
  return cut === undefined ? { rows, truncated: false } : { rows, truncated: true, limit: cut };
}
