import { quote, SCHEMA_PRAGMAS, UNSAFE_SQL_FUNCTIONS, VALUE_PRAGMAS } from "@forge/toolkit/validate";
import { sqlLowerCase } from "@forge/toolkit/validate/sql-tokens";
import { AUTH, type AuthorizerCallback } from "./sqlite.ts";
import { type WriteKind, writePattern } from "./write_pattern.ts";

/** What an {@linkcode Authorizer} lets a statement do. */
export interface AuthorizerOptions {
  /**
   * `read`: reading only. `plan`: any write to a plain table, recorded as
   * patterns (for a dry prepare). `enforce`: only the writes in `allowed`.
   */
  mode: "read" | "plan" | "enforce";
  /** Whether `WITH RECURSIVE` may run. */
  allowRecursive: boolean;
  /**
   * The patterns a statement may act on (`enforce` mode).
   * @default {[]}
   */
  allowed?: readonly string[];
  /**
   * Whether the statement is a `CREATE`, `DROP` or `ALTER`, which writes SQLite's schema table.
   * @default {false}
   */
  schemaChange?: boolean;
  /**
   * More PRAGMAs allowed, bare (no argument), in every mode: the server's own reads, such as the pricing's
   * `data_version` and `page_count` (see `PRICING_PRAGMAS`), and those full-text modules run
   * (`FULL_TEXT_PRAGMAS`). Read mode also allows the schema PRAGMAs.
   * @default {[]}
   */
  pragmas?: readonly string[];
}

/** The names of SQLite's schema tables, folded. */
export const SCHEMA_TABLES: ReadonlySet<string> = new Set([
  "sqlite_master",
  "sqlite_temp_master",
  "sqlite_schema",
  "sqlite_temp_schema",
]);
const RAW_TABLES = new Set(["sqlite_dbpage", "sqlite_dbdata", "sqlite_dbptr", "fsdir", "zipfile"]);
const DDL: Record<number, "arg1" | "arg2"> = {
  [AUTH.CREATE_TABLE]: "arg1",
  [AUTH.DROP_TABLE]: "arg1",
  [AUTH.CREATE_VIEW]: "arg1",
  [AUTH.DROP_VIEW]: "arg1",
  [AUTH.CREATE_INDEX]: "arg2",
  [AUTH.DROP_INDEX]: "arg2",
  [AUTH.ALTER_TABLE]: "arg2",
};
const ROWS: Record<number, WriteKind> = {
  [AUTH.INSERT]: "insert",
  [AUTH.UPDATE]: "update",
  [AUTH.DELETE]: "delete",
};

/**
 * SQLite's own view of a statement, as it compiles it: node:sqlite calls the
 * authorizer for every table read or written (triggers and foreign-key
 * cascades included), function, PRAGMA and schema change. This class judges
 * each action, so what runs is what SQLite parsed, not what a tokenizer
 * guessed. It is layer 1 (policy code), beside the SQL guard and the
 * read-only connection.
 */
export class Authorizer {
  /** The patterns of the writes seen (plan and enforce modes). */
  readonly writes: Set<string> = new Set();
  /**
   * The names of the tables and views the statements read, as SQLite stores
   * them: what a read names, and each view SQLite expands (the innermost view
   * behind an action), nested ones included.
   */
  readonly reads: Set<string> = new Set();
  /** Why the first refused action was refused. */
  denied: string | undefined;
  readonly #options: AuthorizerOptions;
  readonly #allowed: Set<string>;
  readonly #pragmas: Set<string>;

  /**
   * @param options The mode and what it allows.
   */
  constructor(options: AuthorizerOptions) {
    this.#options = options;
    this.#allowed = new Set(options.allowed ?? []);
    this.#pragmas = new Set((options.pragmas ?? []).map(sqlLowerCase));
  }

  /** The callback for `DatabaseSync.setAuthorizer`. */
  readonly callback: AuthorizerCallback = (action, arg1, arg2, _db, trigger) => {
    if (action === AUTH.READ && arg1 !== null) this.reads.add(arg1);
    if (trigger !== null) this.reads.add(trigger);
    const problem = this.#judge(action, arg1, arg2, trigger);
    if (problem === undefined) return AUTH.OK;
    this.denied ??= problem;
    return AUTH.DENY;
  };

  #judge(action: number, arg1: string | null, arg2: string | null, trigger: string | null): string | undefined {
    const { mode } = this.#options;
    switch (action) {
      case AUTH.SELECT:
        return undefined;
      case AUTH.READ:
        return readProblem(arg1 ?? "");
      case AUTH.FUNCTION:
        return UNSAFE_SQL_FUNCTIONS.has(sqlLowerCase(arg2 ?? "")) ? `${quote(arg2 ?? "")} is not allowed` : undefined;
      case AUTH.RECURSIVE:
        return this.#options.allowRecursive
          ? undefined
          : 'recursive queries are turned off in the config ("allow_recursive": false)';
      case AUTH.PRAGMA:
        // The listed bare PRAGMAs in any mode: a write that reads a full-text table has its module run one.
        return (mode === "read" && pragmaAllowed(arg1 ?? "", arg2)) ||
            (arg2 === null && this.#pragmas.has(sqlLowerCase(arg1 ?? "")))
          ? undefined
          : "this PRAGMA is not allowed";
      case AUTH.REINDEX:
        // CREATE INDEX fills the new index through a REINDEX of it.
        return mode !== "read" ? undefined : "REINDEX is not allowed";
    }
    if (mode === "read") return "a read-only query cannot change the database";
    // DROP TABLE drops the table's triggers with it.
    if (action === AUTH.DROP_TRIGGER && this.writes.has(`sql:ddl:${sqlLowerCase(arg2 ?? "")}`)) return undefined;
    const via = trigger === null ? "" : ` (through trigger ${quote(trigger)})`;
    const ddl = DDL[action];
    // AUTOINCREMENT makes SQLite create its sqlite_sequence table along with the new one.
    if (action === AUTH.CREATE_TABLE && arg1 === "sqlite_sequence" && this.#options.schemaChange) return undefined;
    if (ddl !== undefined) return this.#write("ddl", (ddl === "arg1" ? arg1 : arg2) ?? "", via);
    const kind = ROWS[action];
    if (kind === undefined) return "this kind of statement is not allowed";
    // Schema changes write SQLite's schema table; the ddl pattern covers that.
    if (SCHEMA_TABLES.has(sqlLowerCase(arg1 ?? ""))) {
      return this.#options.schemaChange
        ? undefined
        : "SQLite's schema table can only change through CREATE, DROP or ALTER";
    }
    // DROP TABLE deletes the table's rows; its ddl pattern covers that too.
    if (this.writes.has(`sql:ddl:${sqlLowerCase(arg1 ?? "")}`)) return undefined;
    return this.#write(kind, arg1 ?? "", via);
  }

  #write(kind: WriteKind, table: string, via: string): string | undefined {
    let pattern: string;
    try {
      pattern = writePattern(kind, table);
    } catch (err) {
      return (err as Error).message.replace(/^Cannot execute: /, "") + via;
    }
    if (this.#options.mode === "enforce" && !this.#allowed.has(pattern)) {
      return `the statement would also ${describe(kind)} ${quote(table)}${via}, which its patterns do not name`;
    }
    this.writes.add(pattern);
    return undefined;
  }
}

function readProblem(table: string): string | undefined {
  const name = sqlLowerCase(table);
  if (RAW_TABLES.has(name)) return `${quote(table)} is not allowed`;
  if (name.startsWith("pragma_") && !SCHEMA_PRAGMAS.has(name.slice(7))) {
    return `${quote(table)} is not a schema PRAGMA`;
  }
  return undefined;
}

function pragmaAllowed(name: string, argument: string | null): boolean {
  const pragma = sqlLowerCase(name);
  return SCHEMA_PRAGMAS.has(pragma) || (VALUE_PRAGMAS.has(pragma) && argument === null);
}

function describe(kind: WriteKind): string {
  return { insert: "insert into", update: "update", delete: "delete from", ddl: "change the schema of" }[kind];
}
