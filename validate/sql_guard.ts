import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";
import { singleSqlStatement } from "./single_sql_statement.ts";
import { sqlKeyword, sqlLowerCase, sqlNames, type SqlToken } from "./sql_tokens.ts";

/** Options of {@linkcode assertReadOnlySql}. */
export interface SqlGuardOptions {
  /**
   * The longest SQL accepted, in characters.
   * @default {100000}
   */
  maxLength?: number;
}

// Keywords that begin or belong to statements that change the database, the
// schema, the connection or the transaction state.
const WRITES = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "REPLACE",
  "UPSERT",
  "CREATE",
  "DROP",
  "ALTER",
  "ATTACH",
  "DETACH",
  "PRAGMA",
  "VACUUM",
  "REINDEX",
  "ANALYZE",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
  "TRANSACTION",
  "RETURNING",
]);

/**
 * Functions and table-valued functions that reach outside the database or
 * into its raw pages. Several exist only in extensions or in the sqlite3
 * shell; refusing their names costs nothing. {@linkcode assertReadOnlySql}
 * refuses each of them, bare or quoted; a guard for writes should too.
 *
 * @example
 * ```ts
 * import { UNSAFE_SQL_FUNCTIONS } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(UNSAFE_SQL_FUNCTIONS.has("load_extension"));
 * ```
 */
export const UNSAFE_SQL_FUNCTIONS: ReadonlySet<string> = new Set([
  "load_extension",
  "readfile",
  "writefile",
  "edit",
  "fsdir",
  "zipfile",
  "fts3_tokenizer",
  "sqlar_compress",
  "sqlar_uncompress",
  "sqlite_dbpage",
  "sqlite_dbdata",
  "sqlite_dbptr",
]);

/**
 * PRAGMAs that only describe the schema, given a table or index name:
 * `PRAGMA table_info(t)` or the table-valued `pragma_table_info('t')`.
 * {@linkcode assertReadOnlySql} accepts these and no other PRAGMA with an
 * argument; an authorizer for the same database should allow the same.
 *
 * @example
 * ```ts
 * import { SCHEMA_PRAGMAS } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(SCHEMA_PRAGMAS.has("table_info") && !SCHEMA_PRAGMAS.has("writable_schema"));
 * ```
 */
export const SCHEMA_PRAGMAS: ReadonlySet<string> = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
]);
/**
 * PRAGMAs that read a value when bare (`PRAGMA user_version`) and set it when
 * given one; only the bare form is a read.
 *
 * @example
 * ```ts
 * import { VALUE_PRAGMAS } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.ok(VALUE_PRAGMAS.has("user_version"));
 * ```
 */
export const VALUE_PRAGMAS: ReadonlySet<string> = new Set(["user_version", "application_id"]);

/**
 * Layer 1 for SQL: accepts exactly one statement that only reads — `SELECT`,
 * `WITH … SELECT`, `EXPLAIN [QUERY PLAN]` of those, or a schema-describing
 * `PRAGMA` such as `table_info(t)` — and refuses everything else, including
 * `ATTACH`, writing PRAGMAs, `load_extension` and file functions. It works on
 * tokens (comments, string literals and quoted identifiers are understood),
 * not on regular expressions. It is one layer: open the database read-only
 * as well, and always bind parameters (see {@linkcode queryReadOnly}).
 *
 * @param sql The SQL as the caller gave it.
 * @param options The length cap.
 * @throws {PolicyError} With code `sql` when the SQL is refused.
 *
 * @example Accept a read, refuse a write hidden behind a comment
 * ```ts
 * import { assertReadOnlySql, PolicyError } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assertReadOnlySql("SELECT name FROM users WHERE id = ? -- ; DROP TABLE users");
 * assert.throws(() => assertReadOnlySql("SELECT 1; DROP TABLE users"), PolicyError);
 * ```
 */
export function assertReadOnlySql(sql: string, options: SqlGuardOptions = {}): void {
  readOnlyStatement(sql, options);
}

/** {@linkcode assertReadOnlySql}, returning the statement's tokens (without the trailing `;`). */
export function readOnlyStatement(sql: string, options: SqlGuardOptions = {}): SqlToken[] {
  const statement = singleSqlStatement(sql, { maxLength: options.maxLength });
  const first = sqlKeyword(statement[0]);
  if (first === "PRAGMA") {
    checkPragma(statement);
    return statement;
  }
  let body = statement;
  if (first === "EXPLAIN") {
    body = statement.slice(sqlKeyword(statement[1]) === "QUERY" && sqlKeyword(statement[2]) === "PLAN" ? 3 : 1);
  }
  const head = sqlKeyword(body[0]);
  if (head !== "SELECT" && head !== "WITH") {
    refuse(`only SELECT, WITH … SELECT and EXPLAIN are allowed, not ${quote(body[0]?.text ?? "nothing", 32)}`);
  }
  const names = sqlNames(body);
  body.forEach((_, i) => {
    const name = names[i];
    checkToken(body, i, name === undefined ? undefined : sqlLowerCase(name));
  });
  return statement;
}

function checkToken(body: readonly SqlToken[], i: number, name: string | undefined): void {
  const token = body[i];
  const word = sqlKeyword(token);
  // replace(x, y, z) is a string function, not the REPLACE statement.
  if (WRITES.has(word) && !(word === "REPLACE" && body[i + 1]?.text === "(")) {
    refuse(`${word} is not allowed in a read-only query`);
  }
  // Names as SQLite resolves them: "load_extension"('x') and [pragma_database_list] are the bare names, and so is
  // FROM 'pragma_database_list' (see sqlNames).
  if (name === undefined) return;
  if (UNSAFE_SQL_FUNCTIONS.has(name)) refuse(`${quote(name)} is not allowed`);
  if (name.startsWith("pragma_") && !SCHEMA_PRAGMAS.has(name.slice(7))) {
    refuse(`${quote(name)} is not a read-only schema PRAGMA`);
  }
}

/** `PRAGMA [schema.]name` for a bare reader, or `PRAGMA [schema.]name(arg)` for a schema reader. */
function checkPragma(statement: SqlToken[]): void {
  let rest = statement.slice(1);
  if (rest[1]?.text === ".") rest = rest.slice(2);
  const name = rest[0]?.kind === "word" ? sqlLowerCase(rest[0].text) : "";
  if (rest.some((t) => t.text === "=")) refuse("PRAGMA assignments are not allowed");
  if (VALUE_PRAGMAS.has(name) && rest.length === 1) return;
  const argument = rest[2];
  const shape = rest.length === 4 && rest[1].text === "(" && rest[3].text === ")" &&
    (argument.kind === "word" || argument.kind === "quoted" || argument.kind === "string");
  if (SCHEMA_PRAGMAS.has(name) && shape) return;
  refuse(`PRAGMA ${quote(name || rest[0]?.text || "", 32)} is not a read-only schema PRAGMA`);
}

function refuse(state: string): never {
  throw new PolicyError("sql", `Cannot run query: ${state}`);
}
