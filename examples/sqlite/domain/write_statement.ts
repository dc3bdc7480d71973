import { PolicyError, quote, singleSqlStatement, UNSAFE_SQL_FUNCTIONS } from "@forge/toolkit/validate";
import { sqlIdentifier, sqlKeyword, sqlLowerCase, sqlNames, type SqlToken } from "@forge/toolkit/validate/sql-tokens";
import { type WriteKind, writePattern } from "./write_pattern.ts";

/** What the text of one write statement says it does. */
export interface WriteStatement {
  /** The statement's verb in upper case: `INSERT`, `REPLACE`, `UPDATE`, `DELETE`, `CREATE`, `DROP` or `ALTER`. */
  verb: string;
  /** The patterns the text implies, sorted, e.g. `["sql:delete:users", "sql:insert:users"]` for a REPLACE. */
  patterns: string[];
}

// Statements and clauses that reach beyond one table of the main database,
// change the connection, or return rows; refused wherever they appear.
const REFUSED_WORDS = new Map([
  ["ATTACH", "ATTACH is not allowed: the server uses one database file"],
  ["DETACH", "DETACH is not allowed"],
  ["PRAGMA", "PRAGMA is not allowed in a write"],
  ["VACUUM", "VACUUM (and VACUUM INTO) is not allowed"],
  ["REINDEX", "REINDEX is not allowed"],
  ["ANALYZE", "ANALYZE is not allowed"],
  ["RETURNING", "RETURNING is not supported: run the write, then read with run_query"],
]);
const TRANSACTION_WORDS = new Set(["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]);

/**
 * Layer 1 for writes, on the text: accepts exactly one `INSERT`, `REPLACE`,
 * `UPDATE`, `DELETE` (each optionally after a `WITH` clause), `CREATE TABLE`,
 * `CREATE [UNIQUE] INDEX`, `CREATE VIEW`, `DROP TABLE|INDEX|VIEW` or
 * `ALTER TABLE` on the main database, and names the tables it changes.
 * Refuses several statements, transactions, `ATTACH`, `PRAGMA`, `VACUUM`,
 * triggers, virtual and temporary tables, `RETURNING`, file and extension
 * functions, and tables whose names cannot go into a pattern. SQLite's
 * authorizer then checks what the statement really does (see authorizer.ts).
 *
 * @param sql The SQL as the caller gave it.
 * @param maxLength The longest SQL accepted.
 * @returns The verb and the patterns the text implies.
 * @throws {PolicyError} With code `sql` when the statement is refused.
 */
export function classifyWrite(sql: string, maxLength: number): WriteStatement {
  const statement = singleSqlStatement(sql, { maxLength, action: "execute" });
  const names = sqlNames(statement);
  statement.forEach((token, i) => {
    const reason = REFUSED_WORDS.get(sqlKeyword(token));
    if (reason) refuse(reason);
    // Names as SQLite resolves them: `"load_extension"(…)` is the bare function, and so is a string literal
    // where a table name goes (`FROM 'pragma_database_list'`).
    const name = sqlLowerCase(names[i] ?? "");
    if (UNSAFE_SQL_FUNCTIONS.has(name) || name.startsWith("pragma_")) refuse(`${quote(name)} is not allowed`);
  });
  const at = verbIndex(statement);
  const verb = sqlKeyword(statement[at]);
  const patterns = new Set<string>();
  const add = (kind: WriteKind, token: number) => patterns.add(writePattern(kind, tableAt(statement, token).name));
  const rest = statement.slice(at + 1);
  if (verb === "INSERT" || verb === "REPLACE" || verb === "UPDATE") {
    const conflict = sqlKeyword(rest[0]) === "OR" ? sqlKeyword(rest[1]) : "";
    let i = at + 1 + (conflict ? 2 : 0);
    if (verb !== "UPDATE") {
      if (sqlKeyword(statement[i]) !== "INTO") refuse(`${verb} must be followed by INTO <table>`);
      i++;
    }
    add(verb === "UPDATE" ? "update" : "insert", i);
    // REPLACE removes the rows it conflicts with; an upsert may update them.
    if (verb === "REPLACE" || conflict === "REPLACE") add("delete", i);
    if (statement.some((t, k) => sqlKeyword(t) === "DO" && sqlKeyword(statement[k + 1]) === "UPDATE")) add("update", i);
  } else if (verb === "DELETE") {
    if (sqlKeyword(rest[0]) !== "FROM") refuse("DELETE must be followed by FROM <table>");
    add("delete", at + 2);
  } else if (verb === "CREATE") {
    createTarget(statement, at + 1, add);
  } else if (verb === "DROP") {
    const what = sqlKeyword(rest[0]);
    if (what === "TRIGGER") refuse("triggers cannot be created or dropped here");
    if (what !== "TABLE" && what !== "VIEW" && what !== "INDEX") {
      refuse(`DROP ${quote(rest[0]?.text ?? "")} is not allowed`);
    }
    const i = at + 2 + (sqlKeyword(rest[1]) === "IF" && sqlKeyword(rest[2]) === "EXISTS" ? 2 : 0);
    // An index's table is not in the text; SQLite's authorizer names it.
    if (what === "INDEX") tableAt(statement, i);
    else add("ddl", i);
  } else if (verb === "ALTER") {
    if (sqlKeyword(rest[0]) !== "TABLE") refuse("ALTER must be followed by TABLE <table>");
    const { next } = tableAt(statement, at + 2);
    add("ddl", at + 2);
    if (sqlKeyword(statement[next]) === "RENAME" && sqlKeyword(statement[next + 1]) === "TO") add("ddl", next + 2);
  } else if (verb === "SELECT" || verb === "WITH" || verb === "VALUES") {
    refuse("this statement only reads: use run_query");
  } else if (TRANSACTION_WORDS.has(verb)) {
    refuse("transactions are not allowed: each call is one statement, committed on its own");
  } else {
    refuse(
      `only INSERT, REPLACE, UPDATE, DELETE, CREATE, DROP and ALTER are allowed, not ${
        quote(statement[at]?.text ?? "")
      }`,
    );
  }
  return { verb, patterns: [...patterns].sort() };
}

/** CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table | CREATE TABLE|VIEW [IF NOT EXISTS] name. */
function createTarget(statement: SqlToken[], i: number, add: (kind: WriteKind, token: number) => void): void {
  const unique = sqlKeyword(statement[i]) === "UNIQUE";
  const what = sqlKeyword(statement[unique ? i + 1 : i]);
  if (what === "TEMP" || what === "TEMPORARY") refuse("temporary tables, views and triggers are not allowed");
  if (what === "VIRTUAL") refuse("virtual tables are not allowed");
  if (what === "TRIGGER") refuse("triggers cannot be created or dropped here");
  if (!(what === "INDEX" || (!unique && (what === "TABLE" || what === "VIEW")))) {
    refuse(`CREATE ${quote(statement[i]?.text ?? "")} is not allowed`);
  }
  let k = unique ? i + 2 : i + 1;
  if (
    sqlKeyword(statement[k]) === "IF" && sqlKeyword(statement[k + 1]) === "NOT" &&
    sqlKeyword(statement[k + 2]) === "EXISTS"
  ) k += 3;
  const { next } = tableAt(statement, k);
  if (what !== "INDEX") return add("ddl", k);
  if (sqlKeyword(statement[next]) !== "ON") refuse("CREATE INDEX must name its table with ON <table>");
  add("ddl", next + 1);
}

/** The index of the statement's verb: the first token, or after a `WITH` clause the first verb outside parentheses. */
function verbIndex(statement: SqlToken[]): number {
  if (sqlKeyword(statement[0]) !== "WITH") return 0;
  let depth = 0;
  for (let i = 1; i < statement.length; i++) {
    const text = statement[i].text;
    if (text === "(") depth++;
    else if (text === ")") depth--;
    else if (
      depth === 0 && ["INSERT", "REPLACE", "UPDATE", "DELETE", "SELECT", "VALUES"].includes(sqlKeyword(statement[i]))
    ) {
      return i;
    }
  }
  return 0;
}

/** `[main.]name` at token `i`: the table's name and the index after it. */
function tableAt(statement: SqlToken[], i: number): { name: string; next: number } {
  let name = sqlIdentifier(statement[i]);
  let next = i + 1;
  if (name !== undefined && statement[next]?.text === ".") {
    if (sqlLowerCase(name) !== "main") refuse(`only the main database can be changed, not ${quote(name)}`);
    name = sqlIdentifier(statement[next + 1]);
    next += 2;
  }
  if (name === undefined) refuse(`a table name is missing after ${quote(statement[i - 1]?.text ?? "")}`);
  return { name, next };
}

function refuse(state: string): never {
  throw new PolicyError("sql", `Cannot execute: ${state}`);
}
