// What a query's price is made of: how many rows each table holds, how many
// pages the file has, how big the schema is. Counting a big table takes
// time, so counts are kept until another connection commits, only the
// tables a price needs are counted, and one query's counting stops at a
// budget of rows; they are made in the database process, under the call's
// deadline.
// A hostile file can make counting run its own SQL (an FTS5 table with
// external content counts its rows through a view the file defines), so
// virtual tables are never counted, and everything here runs under a
// read-mode authorizer (runQuery sets one).
import { sqlLowerCase } from "@forge/toolkit/validate/sql-tokens";
import type { Sqlite } from "./sqlite.ts";

/** The sizes a price reads (see `queryCost`). */
export interface Sizes {
  /** The database's tables (virtual ones included), folded as SQLite folds names (ASCII letters only). */
  readonly tables: ReadonlySet<string>;
  /**
   * Whether one of {@linkcode Sizes.tables} is a table SQLite stores (`PRAGMA table_list` says `table` or `shadow`),
   * whose rows can be counted. A virtual table's rows come from its module, which may run SQL the file defines (an
   * FTS5 table's `content` view): it is never counted.
   */
  countable(table: string): boolean;
  /**
   * The rows of one of {@linkcode Sizes.tables}, counted up to a cap (the cap itself when counting is cut short, or
   * for a table that is not {@linkcode Sizes.countable}).
   */
  rows(table: string): number;
  /** The file's pages: the rows of `dbstat`. */
  pages(): number;
  /** The entries of SQLite's schema table: tables, indexes, views and triggers. */
  schemaEntries(): number;
}

/**
 * The most bytes of view SQL one query's price reads into JavaScript (see
 * {@linkcode DatabaseSizes.viewSql}), and the most the cache keeps.
 */
export const MAX_VIEW_SQL_BYTES = 262_144;

/**
 * The PRAGMAs {@linkcode DatabaseSizes} runs, bare: what the read-mode
 * authorizer it runs under must allow besides the schema PRAGMAs.
 */
export const PRICING_PRAGMAS: readonly string[] = Object.freeze(["data_version", "page_count"]);

/** A `CREATE TABLE` statement (a virtual table's says `CREATE VIRTUAL TABLE`), comments between its words allowed. */
const STORED_TABLE = /^\s*create(?:\s+|\/\*[\s\S]*?\*\/|--[^\n]*(?:\n|$))+table\b/i;

/**
 * Whether a table's statement in `sqlite_schema` (what SQLite parsed) makes it
 * a table SQLite stores: `CREATE TABLE`, not `CREATE VIRTUAL TABLE`, whose
 * rows come from a module (full-text search, R-Tree, …).
 *
 * @param sql The `sql` column of the table's `sqlite_schema` row.
 * @returns True for a stored table; false for a virtual one, or a row with no statement.
 *
 * @example
 * ```ts
 * import { isStoredTableSql } from "./database_sizes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isStoredTableSql("CREATE TABLE docs (body TEXT)"));
 * assert.ok(!isStoredTableSql("CREATE VIRTUAL TABLE docs_fts USING fts5(body)"));
 * ```
 */
export function isStoredTableSql(sql: unknown): boolean {
  return typeof sql === "string" && STORED_TABLE.test(sql);
}

/**
 * Rows counted per millisecond of `query_timeout_ms`, for the budget one
 * query's counting may use (see {@linkcode DatabaseSizes.refresh}): a small
 * part of the deadline at the tens of thousands of rows per millisecond
 * SQLite counts.
 */
export const COUNT_ROWS_PER_MS = 5_000;

/**
 * The sizes of one connection's database. Row counts are capped (past the
 * budget a table's exact size changes no verdict) and kept while
 * `PRAGMA data_version` says no other connection has committed.
 */
export class DatabaseSizes implements Sizes {
  readonly #db: Sqlite;
  readonly #counts = new Map<string, number>();
  #version: unknown;
  #cap = 0;
  // Rows this query's counting may still read; a table it cannot finish within is priced at the cap.
  #budget = Infinity;
  // Table → rows it is known to hold more than, from a count the budget cut short.
  readonly #moreThan = new Map<string, number>();
  // Folded name → the name as the schema stores it: SQLite allows no two tables that fold alike, and a table is
  // counted under its stored name, since a name folded by anything but SQLite's rule may name another table.
  #stored: Map<string, string> = new Map();
  #tables: ReadonlySet<string> = new Set();
  // Stored name → whether SQLite holds it as a table it stores (not a virtual one), asked once per listing.
  readonly #countable = new Map<string, boolean>();
  #pages: number | undefined;
  #entries: number | undefined;
  // Folded name → the view's SQL, or null for a name no view has; at most MAX_VIEW_SQL_BYTES of SQL in all.
  readonly #views = new Map<string, { sql: string; bytes: number } | null>();
  #viewBytes = 0;

  /**
   * @param db The connection (read-only in the database process).
   */
  constructor(db: Sqlite) {
    this.#db = db;
  }

  /**
   * Starts a query's pricing: forgets what another connection's commit may
   * have changed, and reads the table names when it may have. Call it, and
   * every other method, under a read-mode authorizer that also allows
   * {@linkcode PRICING_PRAGMAS}: a count reads what the file defines.
   *
   * @param cap Counts stop here: the query's `max_scan_rows` plus one.
   * @param budget The most rows this query's counting reads in all; a table
   * not counted within what is left is priced at `cap`, which no count
   * passes.
   */
  refresh(cap: number, budget: number = Infinity): void {
    const now = this.#db.prepare("PRAGMA data_version").get()?.data_version;
    const changed = now !== this.#version;
    if (changed || cap > this.#cap) {
      this.#counts.clear();
      this.#moreThan.clear();
      this.#pages = this.#entries = undefined;
    }
    this.#version = now;
    this.#cap = cap;
    this.#budget = budget;
    if (!changed) return;
    this.#views.clear();
    this.#viewBytes = 0;
    this.#countable.clear();
    // A file of many thousands of tables takes a while to list: the names are kept while no other connection commits.
    this.#stored = new Map(
      this.#db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all()
        .map((row) => [sqlLowerCase(String(row.name)), String(row.name)]),
    );
    this.#tables = new Set(this.#stored.keys());
  }

  get tables(): ReadonlySet<string> {
    return this.#tables;
  }

  countable(table: string): boolean {
    const stored = this.#stored.get(sqlLowerCase(table)) ?? table;
    let countable = this.#countable.get(stored);
    if (countable === undefined) {
      // What SQLite made of the name is what its CREATE statement says: the sqlite_schema row's type and rootpage are
      // the file's to say, its sql is what SQLite parsed. Not `pragma_table_list`: before it looks at its argument it
      // compiles every view whose columns are not known yet, so one unused compile-bomb view in the file (or a chain
      // of 15,000) held every query that reads a table to its deadline (or crashed the process on a full stack).
      const sql = this.#db.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?").get(stored)?.sql;
      countable = isStoredTableSql(sql);
      this.#countable.set(stored, countable);
    }
    return countable;
  }

  rows(table: string): number {
    const known = this.#counts.get(table);
    if (known !== undefined) return known;
    const cap = Math.ceil(this.#cap);
    if (!this.countable(table)) return cap;
    // A table known to hold more rows than the budget left is priced at the cap without reading it again.
    if ((this.#moreThan.get(table) ?? -1) >= this.#budget) return cap;
    const stored = this.#stored.get(sqlLowerCase(table)) ?? table;
    const quoted = `"${stored.replaceAll('"', '""')}"`;
    const limit = Math.min(cap, Math.floor(this.#budget) + 1);
    const rows = Number(
      this.#db.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM main.${quoted} LIMIT ${limit})`).get()?.n,
    );
    this.#budget = Math.max(0, this.#budget - rows);
    if (rows < limit || limit === cap) {
      this.#counts.set(table, rows);
      return rows;
    }
    // Cut short by the budget: the count is unknown, and the cap is at least any count.
    this.#moreThan.set(table, Math.max(this.#moreThan.get(table) ?? 0, limit - 1));
    return cap;
  }

  pages(): number {
    return this.#pages ??= Number(this.#db.prepare("PRAGMA page_count").get()?.page_count);
  }

  /**
   * The SQL of the views among `names` (what the statement reads, see
   * `Authorizer.reads`), kept until another connection commits. A hostile
   * file can hold views of megabytes each, so no more than `maxBytes` of SQL
   * is read for one call: a view past it is `undefined`, which `queryCost`
   * prices as a view it cannot read.
   *
   * @param names Table and view names; tables are left out.
   * @param maxBytes The most bytes of SQL read for this call.
   * @returns Each view's SQL, or `undefined` for one left unread.
   */
  viewSql(names: Iterable<string>, maxBytes: number = MAX_VIEW_SQL_BYTES): (string | undefined)[] {
    const found: (string | undefined)[] = [];
    let bytes = 0;
    for (const name of new Set([...names].map(sqlLowerCase))) {
      const view = this.#view(name, maxBytes - bytes);
      if (view === null) continue;
      if (view === undefined || bytes + view.bytes > maxBytes) {
        found.push(undefined);
        continue;
      }
      bytes += view.bytes;
      found.push(view.sql);
    }
    return found;
  }

  /** One view's SQL (null: no such view; undefined: longer than `room` bytes). */
  #view(name: string, room: number): { sql: string; bytes: number } | null | undefined {
    const known = this.#views.get(name);
    if (known !== undefined) return known;
    const where = "FROM sqlite_schema WHERE type = 'view' AND name = ? COLLATE NOCASE AND sql IS NOT NULL";
    // The length first: SQLite reads a long text's overflow pages only when the text itself is asked for.
    const row = this.#db.prepare(`SELECT octet_length(sql) AS n ${where}`).get(name);
    if (row === undefined) {
      this.#views.set(name, null);
      return null;
    }
    const bytes = Number(row.n);
    if (bytes > room) return undefined;
    const view = { sql: String(this.#db.prepare(`SELECT sql ${where}`).get(name)?.sql), bytes };
    if (this.#viewBytes + bytes <= MAX_VIEW_SQL_BYTES) {
      this.#views.set(name, view);
      this.#viewBytes += bytes;
    }
    return view;
  }

  /**
   * The `CREATE VIRTUAL TABLE` statement of one of {@linkcode Sizes.tables}, for the options its module reads (an
   * FTS table's `content=`), read only when it is at most `maxBytes` long.
   *
   * @param table A table's name.
   * @param maxBytes The longest statement read.
   * @returns The statement; `null` when the table is no virtual table; `undefined` when it is longer than `maxBytes`.
   */
  virtualTableSql(table: string, maxBytes: number = MAX_VIEW_SQL_BYTES): string | null | undefined {
    // Whether it is virtual is SQLite's word (`countable`), not the schema row's rootpage: the file's to say.
    if (!this.#tables.has(sqlLowerCase(table)) || this.countable(table)) return null;
    const where = "FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE AND sql IS NOT NULL";
    const row = this.#db.prepare(`SELECT octet_length(sql) AS n ${where}`).get(table);
    if (row === undefined) return null;
    if (Number(row.n) > maxBytes) return undefined;
    return String(this.#db.prepare(`SELECT sql ${where}`).get(table)?.sql);
  }

  schemaEntries(): number {
    return this.#entries ??= Number(this.#db.prepare("SELECT count(*) AS n FROM sqlite_schema").get()?.n);
  }
}
