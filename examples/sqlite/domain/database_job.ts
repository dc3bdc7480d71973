// What the server asks its database process, and how the process answers:
// one job in, one reply out, both plain JSON. Everything SQLite does —
// compiling, planning, pricing, stepping, writing — happens in answerJob(),
// in that process, never on the thread that reads the server's stdin.
import { PolicyError, type PolicyErrorCode } from "@forge/toolkit/validate";
import type { Sqlite } from "./sqlite.ts";
import { describeTable, listTables } from "./catalog.ts";
import type { DatabaseSizes } from "./database_sizes.ts";
import { runQuery } from "./query.ts";
import { toSqlParams } from "./values.ts";
import { assertApproved, executeWrite, planWrite, rollBackJournal } from "./write.ts";

/** The limits of one query, from the config the call saw. */
export interface QueryLimits {
  /** `max_rows`. */
  maxRows: number;
  /** `max_sql_length`. */
  maxSqlLength: number;
  /** `allow_recursive`. */
  allowRecursive: boolean;
  /** `max_scan_rows`. */
  maxScanRows: number;
  /**
   * The most rows counted to price the query: `query_timeout_ms` × `COUNT_ROWS_PER_MS`.
   * @default {Infinity}
   */
  maxCountRows?: number;
}

/** The limits of one write, from the config the call saw. */
export interface WriteLimits {
  /** `max_sql_length`. */
  maxSqlLength: number;
  /** `allow_recursive`. */
  allowRecursive: boolean;
  /** `max_database_mb`, for `execute`; the config's default when absent. */
  maxDatabaseMb?: number;
}

/** One job for the database process. */
export type DatabaseJob =
  | { kind: "query"; sql: string; params: unknown; limits: QueryLimits }
  | { kind: "list" }
  | { kind: "describe"; table: string }
  | { kind: "patterns"; sql: string; limits: WriteLimits }
  | {
    kind: "execute";
    sql: string;
    params: unknown;
    limits: WriteLimits;
    /** The patterns the call was approved and audited under: the write may act on no table they do not name. */
    approved?: string[];
  }
  | { kind: "recover"; maxDatabaseMb?: number };

/** The connections of a database process: a read-only one always, a read-write one in a process that may write. */
export interface Connections {
  /** From `openDatabase(path, false)`. */
  reader: Sqlite;
  /** From `openDatabase(path, true)`; absent in a read-only process. */
  writer?: Sqlite;
}

/**
 * The process's answer: the tool's value, or a refusal the model may read;
 * `hotJournal` when a read-only connection met a hot journal, which a
 * process that may write can roll back.
 */
export type DatabaseReply =
  | { ok: unknown }
  | { error: { code: PolicyErrorCode; message: string; hotJournal?: true } };

/**
 * A refusal because a read-only connection met a hot journal (a write to the
 * database was stopped before its commit): a process that may write can roll
 * it back, and the job can then run again.
 */
export class HotJournalError extends PolicyError {
  /**
   * Builds the refusal.
   *
   * @param code Why it was refused.
   * @param message What the model sees: `Cannot <action>: the database has a hot journal …`.
   */
  constructor(code: PolicyErrorCode, message: string) {
    super(code, message);
    this.name = "HotJournalError";
  }
}

// SQLITE_READONLY_ROLLBACK: a read-only connection met a hot journal.
const SQLITE_READONLY_ROLLBACK = 776;

/**
 * The longest job line the process reads, in bytes: a call's SQL and
 * parameters, which the toolkit already capped as one message.
 */
export const MAX_JOB_BYTES: number = 64 * 2 ** 20 + 4096;
/**
 * The longest reply line the server reads, in bytes: a result is cut at
 * 1 MiB of row JSON, which escapes can at most sextuple. A longer line is a
 * process gone wrong, and it is killed.
 */
export const MAX_REPLY_BYTES: number = 8 * 2 ** 20;

/** What each job kind does, for messages: `Cannot <action>: …`. */
export const JOB_ACTIONS: Readonly<Record<DatabaseJob["kind"], string>> = Object.freeze({
  query: "run query",
  list: "list tables",
  describe: "describe table",
  patterns: "execute",
  execute: "execute",
  recover: "roll back an interrupted write",
});

/**
 * What each job kind's deadline message advises, after `…and was stopped; `. Only a query can be narrowed: listing
 * or describing tables, or checking a write, is slow when SQLite reads a large schema, which it does first in every
 * new process (about 1 s for 50,000 tables), and each stop starts that again.
 *
 * @example
 * ```ts
 * import { JOB_DEADLINE_ADVICE } from "./database_job.ts";
 * console.log(JOB_DEADLINE_ADVICE.list); // raise query_timeout_ms: …
 * ```
 */
export const JOB_DEADLINE_ADVICE: Readonly<Record<DatabaseJob["kind"], string>> = Object.freeze({
  query: "narrow it (a WHERE on an indexed column, fewer joined tables, a LIMIT)",
  list: "raise query_timeout_ms above the time SQLite takes to read the file's schema",
  describe: "raise query_timeout_ms above the time SQLite takes to read the file's schema",
  patterns: "simplify the statement (fewer nested WITH clauses, views or subqueries: SQLite compiles each), or raise " +
    "query_timeout_ms above the time SQLite takes to read the file's schema and compile it",
  execute: "SQLite undoes a write stopped before its commit (run_query shows what is there)",
  recover: "raise query_timeout_ms above the time SQLite takes to roll the journal back",
});

/**
 * Does one job on the process's read-only connection (`execute` and
 * `recover` on its read-write one, which first rolls back a hot journal). A
 * refusal becomes an error reply with its message, marked when a read-only
 * connection met a hot journal; anything else (a bug, not SQLite's word on
 * the query) becomes a generic one, and its detail goes to stderr.
 *
 * @param connections The process's connections.
 * @param job What to do.
 * @param sizes The sizes kept between the read-only connection's queries.
 * @returns The reply.
 */
export function answerJob(connections: Connections, job: DatabaseJob, sizes: DatabaseSizes): DatabaseReply {
  const { reader, writer } = connections;
  try {
    switch (job.kind) {
      case "query":
        return { ok: runQuery(reader, job.sql, { params: toSqlParams(job.params), ...job.limits, sizes }) };
      case "list":
        return { ok: listTables(reader) };
      case "describe":
        return { ok: describeTable(reader, job.table) };
      case "patterns":
        return { ok: planWrite(reader, job.sql, job.limits).patterns };
      case "execute": {
        if (writer === undefined) throw new TypeError("Cannot execute: this database process may not write");
        // A write stopped since this process opened may have left a hot journal, which the read-only connection
        // that plans the write cannot get past.
        rollBackJournal(writer, "execute");
        const plan = planWrite(reader, job.sql, job.limits);
        assertApproved(plan, job.approved);
        const params = toSqlParams(job.params);
        const { allowRecursive, maxDatabaseMb } = job.limits;
        return { ok: executeWrite(writer, { plan, params, allowRecursive, maxDatabaseMb }) };
      }
      case "recover":
        if (writer === undefined) throw new TypeError(`Cannot ${JOB_ACTIONS.recover}: this process may not write`);
        rollBackJournal(writer, JOB_ACTIONS.recover);
        return { ok: null };
      default:
        throw new TypeError(`Cannot do a job: unknown kind ${JSON.stringify((job as { kind?: unknown }).kind)}`);
    }
  } catch (err) {
    if (err instanceof PolicyError) {
      return { error: { code: err.code, message: err.message, ...(metHotJournal(err) ? { hotJournal: true } : {}) } };
    }
    console.error("sqlite database process:", err);
    return { error: { code: "sql", message: `Cannot ${JOB_ACTIONS[job.kind] ?? "run query"}: the database failed` } };
  }
}

/** Whether SQLite's error behind a refusal (a cause or two down) is a read-only connection's hot journal. */
function metHotJournal(err: Error): boolean {
  for (let at: unknown = err, depth = 0; at instanceof Error && depth < 4; at = at.cause, depth++) {
    if ((at as { errcode?: unknown }).errcode === SQLITE_READONLY_ROLLBACK) return true;
  }
  return false;
}
