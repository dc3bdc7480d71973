import type { SQLInputValue } from "node:sqlite";
import { PolicyError, quote } from "@forge/toolkit/validate";
import type { Sqlite } from "./sqlite.ts";
import { Authorizer } from "./authorizer.ts";
import { sqliteProblem, withAuthorizer } from "./connection.ts";
import { isStoredTableSql } from "./database_sizes.ts";
import { FULL_TEXT_PRAGMAS } from "./query.ts";
import { classifyWrite } from "./write_statement.ts";
import { type JsonValue, type SqlParams, toJsonValue } from "./values.ts";

/** A write statement, checked, with the patterns that say what it would change. */
export interface WritePlan {
  /** The SQL, exactly as it will run. */
  sql: string;
  /** Every `sql:<kind>:<table>` the statement may act on, sorted. */
  patterns: string[];
  /** Whether it is a `CREATE`, `DROP` or `ALTER`. */
  schemaChange: boolean;
}

/** Options of {@linkcode planWrite} and {@linkcode executeWrite}. */
export interface WriteOptions {
  /** The longest SQL accepted, in characters. */
  maxSqlLength: number;
  /** Whether `WITH RECURSIVE` may run. */
  allowRecursive: boolean;
}

/** What {@linkcode executeWrite} runs. */
export interface ExecuteRequest {
  /** From {@linkcode planWrite}. */
  plan: WritePlan;
  /** Values bound to the placeholders. */
  params: SqlParams;
  /** Whether `WITH RECURSIVE` may run. */
  allowRecursive: boolean;
  /** The largest the database file may grow to, in MiB (`max_database_mb`); {@linkcode DATABASE_CAP_MB}'s default when absent. */
  maxDatabaseMb?: number;
}

/** `max_database_mb`: its bounds and default, in MiB. */
export const DATABASE_CAP_MB = { min: 1, max: 1_048_576, default: 1_024 } as const;

// SQLite's code when a write needs a page past max_page_count (or the disk is full).
const SQLITE_FULL = 13;

/** What a write did. */
export interface ExecuteResult {
  /** Rows the statement inserted, updated or deleted (0 for a schema change: SQLite does not count those). */
  changes: JsonValue;
  /** The rowid of the last row this statement inserted; null when it inserted none. */
  last_insert_rowid: JsonValue;
}

/**
 * Works out what a write would do, without doing it: the tokenizer
 * (`classifyWrite`) refuses what is never allowed and names the statement's
 * target; then SQLite compiles the statement on the read-only connection
 * with an authorizer that records every table it would write — those that
 * triggers and foreign-key cascades reach included. Compiling changes
 * nothing, so this is what a probe runs. It first reads the schema, so that
 * a schema another connection changed since is the one compiled against.
 *
 * @param reader A read-only connection (compiling there cannot write).
 * @param sql One write statement.
 * @param options Limits.
 * @returns The plan: the SQL and its patterns.
 * @throws {PolicyError} When the statement is refused or SQLite cannot compile it.
 */
export function planWrite(reader: Sqlite, sql: string, options: WriteOptions): WritePlan {
  const statement = classifyWrite(sql, options.maxSqlLength);
  // SQLite checks a connection's schema against the file only when a statement runs: a long-lived connection that
  // another one's `CREATE TRIGGER`, or new table with an `ON DELETE CASCADE`, passed compiled against the schema it
  // read before, and the patterns left out what the write would now change. One read brings it up to date.
  readSchema(reader, "execute");
  refuseVirtualTables(reader, statement.patterns);
  const schemaChange = ["CREATE", "DROP", "ALTER"].includes(statement.verb);
  // A write may read a full-text table (`DELETE … WHERE id IN (SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?)`).
  const authorizer = new Authorizer({
    mode: "plan",
    allowRecursive: options.allowRecursive,
    schemaChange,
    pragmas: FULL_TEXT_PRAGMAS,
  });
  withAuthorizer(reader, authorizer, "execute", () => reader.prepare(sql));
  const patterns = [...new Set([...statement.patterns, ...authorizer.writes])].sort();
  // What triggers reach, too.
  refuseVirtualTables(reader, patterns);
  return { sql, patterns, schemaChange };
}

/**
 * Refuses a write that would change a virtual table (its rows, or its name). Its module writes tables of its own
 * (FTS5's `<t>_data`, `<t>_idx`, …; R-Tree's `<t>_node`, …) through statements it compiles when it first connects or
 * first writes, so no plan can name them ahead: FTS refused such a write only at the call, after the probe had
 * approved it ("this PRAGMA is not allowed"), and R-Tree's patterns named its tables on a process's first write and
 * not after, when the write was refused.
 */
function refuseVirtualTables(reader: Sqlite, patterns: readonly string[]): void {
  for (const pattern of patterns) {
    const table = pattern.slice(pattern.indexOf(":", 4) + 1);
    const row = reader.prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE")
      .get(table);
    if (row === undefined || isStoredTableSql(row.sql)) continue;
    throw new PolicyError(
      "sql",
      `Cannot execute: the statement would change ${quote(String(row.name))}, a virtual table (full-text search, ` +
        "R-Tree or another module): its module writes tables of its own that no permission pattern can name " +
        "before the write, so virtual tables are not changed here (a trigger that writes one counts too)",
    );
  }
}

/**
 * Refuses a write whose plan names a table the call's approved patterns do
 * not: the schema changed between the patterns the host approved (and the
 * audit trail wrote) and this moment, and the write would now do more.
 *
 * @param plan The write's plan, made just now.
 * @param approved The call's patterns; undefined when the caller had none to give (nothing to hold the plan to).
 * @throws {PolicyError} When the plan names more (code `no-permission`).
 *
 * @example Within what was approved
 * ```ts
 * import { assertApproved } from "./write.ts";
 *
 * assertApproved({ sql: "DELETE FROM t", patterns: ["sql:delete:t"], schemaChange: false }, ["sql:delete:t"]);
 * ```
 */
export function assertApproved(plan: WritePlan, approved: readonly string[] | undefined): void {
  if (approved === undefined) return;
  const more = plan.patterns.filter((pattern) => !approved.includes(pattern));
  if (more.length === 0) return;
  throw new PolicyError(
    "no-permission",
    `Cannot execute: the statement would now also act as ${more.join(", ")}, which this call's patterns (${
      approved.join(", ") || "none"
    }) do not name: the database's schema changed since they were worked out; nothing was changed, ask again`,
  );
}

/**
 * Runs a planned write on the read-write connection, in its own implicit
 * transaction, with an authorizer that refuses any write the plan's patterns
 * do not name (so what runs is what was approved, even if the schema changed
 * in between).
 *
 * @param writer A connection from `openDatabase(path, true)`.
 * @param request The plan, the values to bind and whether recursion may run.
 * @returns How many rows changed and the last inserted rowid.
 * @throws {PolicyError} When the authorizer refuses or SQLite fails (constraint, busy, …).
 */
export function executeWrite(writer: Sqlite, request: ExecuteRequest): ExecuteResult {
  const { plan, params } = request;
  // SQLite allocates no page past max_page_count: a write that would grow the file further fails whole. It cannot be
  // set below the file's current pages, so a file already larger may shrink or reuse its free pages, never grow.
  const capMb = request.maxDatabaseMb ?? DATABASE_CAP_MB.default;
  const pageSize = Number((writer.prepare("PRAGMA page_size").get() as { page_size: number | bigint }).page_size);
  writer.prepare(`PRAGMA max_page_count = ${Math.max(1, Math.floor((capMb * 2 ** 20) / pageSize))}`).get();
  const authorizer = new Authorizer({
    mode: "enforce",
    allowRecursive: request.allowRecursive,
    schemaChange: plan.schemaChange,
    allowed: plan.patterns,
    pragmas: FULL_TEXT_PRAGMAS,
  });
  return withAuthorizer(writer, authorizer, "execute", () => {
    const statement = writer.prepare(plan.sql);
    let result;
    try {
      result = Array.isArray(params)
        ? statement.run(...(params as SQLInputValue[]))
        : statement.run(params as Record<string, SQLInputValue>);
    } catch (err) {
      if ((err as { errcode?: unknown }).errcode !== SQLITE_FULL) throw err;
      throw new PolicyError(
        "too-large",
        `Cannot execute: the database would grow past ${capMb} MiB (max_database_mb), or the disk is full; ` +
          "nothing was changed",
        { cause: err },
      );
    }
    // SQLite's counters keep the last DML's values across a schema change or a write that inserts nothing.
    const changes = plan.schemaChange ? 0 : toJsonValue(result.changes);
    const inserted = changes !== 0 && plan.patterns.some((p) => p.startsWith("sql:insert:"));
    return { changes, last_insert_rowid: inserted ? toJsonValue(result.lastInsertRowid) : null };
  });
}

/**
 * Has a connection that may write roll back a hot journal, if there is one:
 * a write stopped by a kill leaves one, which a read-only connection cannot
 * get past (SQLite refuses its every statement), while the first read of a
 * connection that may write rolls it back. Reading the schema is such a read,
 * and does nothing else. Check the journal first (`journalProblem`): a rollback
 * does what the journal says.
 *
 * @param writer A connection from `openDatabase(path, true)`.
 * @param action What is being done, for the message: `execute`, …
 * @throws {PolicyError} When SQLite fails (the database is locked by another writer, …).
 */
export function rollBackJournal(writer: Sqlite, action: string): void {
  readSchema(writer, action);
}

/** Has `db` read the schema (a statement that runs, and changes nothing); its failure is a refusal of `action`. */
function readSchema(db: Sqlite, action: string): void {
  try {
    db.prepare("SELECT count(*) FROM sqlite_schema").get();
  } catch (err) {
    throw new PolicyError("sql", `Cannot ${action}: ${sqliteProblem(db, err)}`, { cause: err });
  }
}
