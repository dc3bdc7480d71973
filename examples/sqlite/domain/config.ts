// The config of the sqlite server. Nothing is allowed by default: with no file
// (or an empty one) there is no database, and with one the server only reads.
import { definePolicy } from "@forge/toolkit/validate";
import { z } from "zod";
import { MEMORY_CAP_MB } from "./connection.ts";
import { DATABASE_CAP_MB } from "./write.ts";

/** The largest `max_rows` a config may set. */
export const MAX_ROWS_CEILING = 10_000;
/** The largest `max_sql_length` a config may set, in characters. */
export const MAX_SQL_CEILING = 100_000;
/** The largest `query_timeout_ms` a config may set. */
export const MAX_QUERY_TIMEOUT_MS = 9_000;
/**
 * Every tool's own deadline, in milliseconds: past the longest
 * `query_timeout_ms` by a second, so that a job's deadline always answers
 * first, with an `isError` that says why, and never the toolkit's
 * "Tool call timed out". A job's wait for its database process to start
 * counts against this too: the job gets only what the call has left.
 */
export const TOOL_TIMEOUT_MS: number = MAX_QUERY_TIMEOUT_MS + 1_000;

const path = z.string().min(1, "must be a non-empty path");

/** The validated shape of `sqlite.json` (JSONC). Relative paths start at the config file's folder. */
export const ConfigSchema = z.strictObject({
  /** The SQLite file (a path, not `:memory:` or a `file:` URI). Absent: no database, every tool refuses. */
  database: path.refine((p) => p !== ":memory:" && !p.startsWith("file:"), {
    message: 'must be the path of a file, not ":memory:" or a "file:" URI',
  }).optional(),
  /** The most rows one query returns; the result says `truncated` when there were more. */
  max_rows: z.number().int().min(1).max(MAX_ROWS_CEILING).default(100),
  /** Whether the `execute` tool may change the database (and the process gets write access to the file). */
  writable: z.boolean().default(false),
  /** The longest SQL text accepted, in characters. */
  max_sql_length: z.number().int().min(64).max(MAX_SQL_CEILING).default(10_000),
  /**
   * How long one query may run, in milliseconds. The call answers at this
   * deadline, and its database process is stopped (see README, Limits).
   * Under every tool's own deadline ({@linkcode TOOL_TIMEOUT_MS}), so that the answer says why.
   */
  query_timeout_ms: z.number().int().min(100).max(MAX_QUERY_TIMEOUT_MS).default(5_000),
  /**
   * The most rows a query's nested loops may visit, priced from SQLite's
   * plan and the tables' row counts before it runs; a dearer query is
   * refused up front (see README, Limits).
   */
  max_scan_rows: z.number().int().min(1_000).max(1e12).default(100_000_000),
  /**
   * The most memory SQLite may hold in one database process, in MiB: a
   * statement that needs more (a big sort, a row of many large values) fails
   * with "out of memory". Temporary storage is kept in memory under this cap
   * rather than spilled to disk (see README, Limits). A change reaches the
   * processes started after it; one running a job keeps its cap until the job
   * ends, then exits.
   */
  max_memory_mb: z.number().int().min(MEMORY_CAP_MB.min).max(MEMORY_CAP_MB.max).default(MEMORY_CAP_MB.default),
  /**
   * The largest the database file may grow to through `execute`, in MiB: a
   * write that needs more fails whole and changes nothing (SQLite's
   * `max_page_count` on the writer). A file already larger may shrink or
   * reuse its free pages, never grow.
   */
  max_database_mb: z.number().int().min(DATABASE_CAP_MB.min).max(DATABASE_CAP_MB.max).default(DATABASE_CAP_MB.default),
  /** Whether `WITH RECURSIVE` queries may run: one can loop until the process is killed (see README). */
  allow_recursive: z.boolean().default(false),
  /** An append-only file for the audit trail of `execute`; stderr when absent. */
  audit_file: path.optional(),
}).superRefine((config, ctx) => {
  // The checks the policy makes (commas and NUL bytes in paths), so a config
  // that could not become a policy is refused when it loads, not mid-call.
  try {
    definePolicy({
      readFiles: config.database === undefined ? [] : [config.database],
      writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
      baseDir: "/",
    });
  } catch (err) {
    ctx.addIssue({ code: "custom", message: (err as Error).message });
  }
  if (config.database !== undefined && config.database === config.audit_file) {
    ctx.addIssue({ code: "custom", path: ["audit_file"], message: "must not be the database file" });
  }
});

/** The sqlite server's config, as validated. */
export type Config = z.infer<typeof ConfigSchema>;
