/**
 * A tokenizer for SQLite's lexical grammar: enough to know where comments,
 * string literals, quoted identifiers and statements begin and end, so a
 * guard judges keywords only where SQLite would read them as keywords. The
 * guards of `@forge/toolkit/validate` read SQL with it; a server that judges
 * SQL itself (as the SQLite example's write check does) imports it from here.
 *
 * @example Split a script into statements
 * ```ts
 * import { splitSqlStatements, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * assert.equal(splitSqlStatements(tokenizeSql("SELECT 1; SELECT ';'")).length, 2);
 * ```
 *
 * @module
 */

/**
 * The kinds of {@linkcode SqlToken}: a bare `word` (keyword or name), a
 * `quoted` identifier (`"…"`, `` `…` ``, `[…]`), a `string` or `blob`
 * literal, a `number`, a `param` (`?`, `?1`, `:n`, `@n`, `$n`), an `op`
 * (one punctuation character) and the statement-ending `semicolon`.
 */
export type SqlTokenKind = "word" | "quoted" | "string" | "blob" | "number" | "param" | "op" | "semicolon";

/** One token of SQL. */
export interface SqlToken {
  /** What it is. */
  kind: SqlTokenKind;
  /** Its source text, quotes included. */
  text: string;
  /** Where it starts in the SQL (a UTF-16 offset). */
  start: number;
}

/**
 * Thrown by {@linkcode tokenizeSql} for text SQLite could not read either;
 * the message fits after `Cannot run query: ` and never echoes the SQL.
 *
 * @example
 * ```ts
 * import { SqlLexError, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * assert.throws(() => tokenizeSql("SELECT 'open"), SqlLexError);
 * ```
 */
export class SqlLexError extends Error {
  /**
   * Makes the error.
   *
   * @param message What could not be read, e.g. "the string literal is not closed".
   */
  constructor(message: string) {
    super(message);
    this.name = "SqlLexError";
  }
}

const OPS = "()[],.+-*/%<>=!|&~";

/**
 * Splits SQLite SQL into tokens, dropping whitespace and comments, in one
 * linear pass. It is what {@linkcode assertReadOnlySql} judges, and what a
 * server that classifies its own statements (for example to name the tables
 * a write touches in its permission patterns) should build on, instead of
 * regular expressions that a comment or a string literal can fool.
 *
 * @param sql The SQL as the caller gave it.
 * @returns The tokens, in order.
 * @throws {SqlLexError} When a comment, literal or quoted identifier is not closed, a parameter has no name, or a
 * character is not SQL.
 *
 * @example Semicolons inside literals and comments do not end a statement
 * ```ts
 * import { tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * const tokens = tokenizeSql("SELECT ';' FROM \"t;1\" -- ; DROP TABLE t");
 * assert.deepEqual(tokens.map((t) => t.kind), ["word", "string", "word", "quoted"]);
 * ```
 */
export function tokenizeSql(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const at = i;
    const c = sql[i];
    const next = sql[i + 1];
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
    } else if (c === "-" && next === "-") {
      while (i < n && sql[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      if (end === -1) throw new SqlLexError("the comment is not closed");
      i = end + 2;
    } else if (c === "'") {
      const end = closing(sql, i, "'", "the string literal is not closed");
      tokens.push({ kind: "string", text: sql.slice(i, end), start: at });
      i = end;
    } else if ((c === "x" || c === "X") && next === "'") {
      const end = closing(sql, i + 1, "'", "the blob literal is not closed");
      tokens.push({ kind: "blob", text: sql.slice(i, end), start: at });
      i = end;
    } else if (c === '"' || c === "`") {
      const end = closing(sql, i, c, "the quoted identifier is not closed");
      tokens.push({ kind: "quoted", text: sql.slice(i, end), start: at });
      i = end;
    } else if (c === "[") {
      const end = sql.indexOf("]", i + 1);
      if (end === -1) throw new SqlLexError("the bracketed identifier is not closed");
      tokens.push({ kind: "quoted", text: sql.slice(i, end + 1), start: at });
      i = end + 1;
    } else if (c === ";") {
      tokens.push({ kind: "semicolon", text: c, start: at });
      i++;
    } else if (isDigit(c) || (c === "." && isDigit(next))) {
      while (i < n && (isWordChar(sql[i]) || sql[i] === ".")) i++;
      tokens.push({ kind: "number", text: sql.slice(at, i), start: at });
    } else if (c === "?" || c === ":" || c === "@" || c === "$") {
      i++;
      // `?` takes digits only (`?FROM` is `?` then FROM, as SQLite reads it); a named parameter takes a word.
      if (c === "?") { while (i < n && isDigit(sql[i])) i++; }
      else while (i < n && isWordChar(sql[i])) i++;
      if (c !== "?" && i === at + 1) throw new SqlLexError(`a parameter name is missing after ${JSON.stringify(c)}`);
      // SQLite reads `$a(…)` up to the `)` and `$a::b` as one parameter (TCL syntax); a lexer that stopped at
      // the name would misread what follows (`$a(') , * FROM pragma_database_list --'`). Nobody binds those here.
      if (c !== "?" && (sql[i] === "(" || (sql[i] === ":" && sql[i + 1] === ":"))) {
        throw new SqlLexError(`the parameter ${JSON.stringify(sql.slice(at, i))} is followed by "${sql[i]}"`);
      }
      tokens.push({ kind: "param", text: sql.slice(at, i), start: at });
    } else if (isWordStart(c)) {
      while (i < n && (isWordChar(sql[i]) || sql[i] === "$")) i++;
      tokens.push({ kind: "word", text: sql.slice(at, i), start: at });
    } else if (OPS.includes(c)) {
      tokens.push({ kind: "op", text: c, start: at });
      i++;
    } else {
      const shown = c.charCodeAt(0) < 0x20 ? `U+${c.charCodeAt(0).toString(16).padStart(4, "0")}` : JSON.stringify(c);
      throw new SqlLexError(`unexpected character ${shown}`);
    }
  }
  return tokens;
}

/**
 * The name a `word` or `quoted` token stands for, as SQLite resolves it:
 * quotes removed and doubled quote characters made single. SQLite accepts a
 * quoted identifier wherever a name goes — `"load_extension"('x')` calls the
 * function — so check names through this, never through `text`.
 *
 * @param token A token from {@linkcode tokenizeSql}, or undefined.
 * @returns The name, or undefined for any other kind of token.
 *
 * @example
 * ```ts
 * import { sqlIdentifier, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * const names = tokenizeSql('plain "a""b" [c d] `e` \'str\'').map(sqlIdentifier);
 * assert.deepEqual(names, ["plain", 'a"b', "c d", "e", undefined]);
 * ```
 */
export function sqlIdentifier(token: SqlToken | undefined): string | undefined {
  if (token?.kind === "word") return token.text;
  if (token?.kind !== "quoted") return undefined;
  const open = token.text[0];
  const inner = token.text.slice(1, -1);
  return open === "[" ? inner : inner.replaceAll(open + open, open);
}

/**
 * Lower-cases a name or keyword as SQLite compares them: ASCII letters only.
 * SQLite holds `"Ä"` and `"ä"` as two tables, so a check or lookup that
 * used `toLowerCase()` would take one for the other (and `toUpperCase()`
 * reads `ſelect` as `SELECT`, which SQLite does not).
 *
 * @param text A name or keyword.
 * @returns `text` with `A`–`Z` turned into `a`–`z`, every other character kept.
 *
 * @example Fold a name as SQLite does
 * ```ts
 * import { sqlLowerCase } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * assert.equal(sqlLowerCase("Main.Ärger"), "main.Ärger");
 * ```
 */
export function sqlLowerCase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/**
 * Upper-cases a keyword or name as SQLite compares them: ASCII letters only
 * (see {@linkcode sqlLowerCase}).
 *
 * @param text A keyword or name.
 * @returns `text` with `a`–`z` turned into `A`–`Z`, every other character kept.
 *
 * @example Fold a keyword as SQLite does
 * ```ts
 * import { sqlUpperCase } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * assert.equal(sqlUpperCase("select"), "SELECT");
 * assert.equal(sqlUpperCase("ſelect"), "ſELECT");
 * ```
 */
export function sqlUpperCase(text: string): string {
  return text.replace(/[a-z]+/g, (letters) => letters.toUpperCase());
}

/**
 * A token as a keyword: a word's text upper-cased as SQLite compares it
 * ({@linkcode sqlUpperCase}), or "" for any other token or none.
 *
 * @param token A token, or undefined past the end.
 * @returns The keyword to compare with `SELECT`, `AS`, …, or "".
 *
 * @example Read a statement's first keyword
 * ```ts
 * import { sqlKeyword, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * const [first, star] = tokenizeSql("select *");
 * assert.equal(sqlKeyword(first), "SELECT");
 * assert.equal(sqlKeyword(star), "");
 * assert.equal(sqlKeyword(undefined), "");
 * ```
 */
export function sqlKeyword(token: SqlToken | undefined): string {
  return token?.kind === "word" ? sqlUpperCase(token.text) : "";
}

/**
 * The statements of a token list: split at each `;` token (never at one
 * inside a literal or comment: the tokenizer already kept those whole), with
 * empty statements (`;;`, a trailing `;`) left out.
 *
 * @param tokens Tokens from {@linkcode tokenizeSql}.
 * @returns One token list per non-empty statement, without its `;`.
 *
 * @example
 * ```ts
 * import { splitSqlStatements, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * assert.equal(splitSqlStatements(tokenizeSql("SELECT ';'; ;")).length, 1);
 * assert.equal(splitSqlStatements(tokenizeSql("SELECT 1; DROP TABLE t")).length, 2);
 * ```
 */
export function splitSqlStatements(tokens: readonly SqlToken[]): SqlToken[][] {
  const out: SqlToken[][] = [[]];
  for (const token of tokens) {
    if (token.kind === "semicolon") out.push([]);
    else out[out.length - 1].push(token);
  }
  return out.filter((statement) => statement.length > 0);
}

// Words that end a FROM list at their nesting level.
const FROM_ENDS = new Set([
  "WHERE",
  "GROUP",
  "HAVING",
  "ORDER",
  "LIMIT",
  "WINDOW",
  "UNION",
  "INTERSECT",
  "EXCEPT",
  "ON",
  "USING",
  "VALUES",
  "SET",
  "RETURNING",
  "SELECT",
]);

/**
 * The name each token of one statement stands for, as SQLite resolves it: a
 * word or quoted identifier unquoted (see {@linkcode sqlIdentifier}), and a
 * string literal where SQLite also takes one as a table name — its
 * compatibility quirk: after `FROM`, `JOIN` or `IN`, after `,` or `(` inside
 * a FROM list, and after `.` — so `FROM 'pragma_database_list'` names the
 * table while `WHERE action = 'edit'` and `VALUES (1, 'edit')` name nothing.
 *
 * @param tokens One statement's tokens, from {@linkcode tokenizeSql}.
 * @returns One entry per token: the name, or undefined.
 *
 * @example
 * ```ts
 * import { sqlNames, tokenizeSql } from "@forge/toolkit/validate/sql-tokens";
 * import assert from "node:assert/strict";
 *
 * const names = sqlNames(tokenizeSql("SELECT 'x' FROM t, 'pragma_database_list'"));
 * assert.deepEqual(names, ["SELECT", undefined, "FROM", "t", undefined, "pragma_database_list"]);
 * ```
 */
export function sqlNames(tokens: readonly SqlToken[]): (string | undefined)[] {
  // inFrom[d]: whether nesting level d is inside a FROM list.
  const inFrom: boolean[] = [false];
  return tokens.map((token, i) => {
    const before = sqlUpperCase(tokens[i - 1]?.text ?? "");
    const depth = inFrom.length - 1;
    let name: string | undefined;
    if (token.kind !== "string") name = sqlIdentifier(token);
    else if (
      before === "FROM" || before === "JOIN" || before === "IN" || before === "." ||
      (before === "," && inFrom[depth]) || (before === "(" && depth > 0 && inFrom[depth - 1])
    ) name = token.text.slice(1, -1).replaceAll("''", "'");
    if (token.text === "(") inFrom.push(false);
    else if (token.text === ")" && depth > 0) inFrom.pop();
    else if (token.kind === "word") {
      const word = sqlUpperCase(token.text);
      if (word === "FROM" || word === "JOIN") inFrom[depth] = true;
      else if (FROM_ENDS.has(word)) inFrom[depth] = false;
    }
    return name;
  });
}

/** The index just past the closing quote; a doubled quote is an escaped one. */
function closing(sql: string, open: number, quote: string, problem: string): number {
  let i = open + 1;
  while (true) {
    const end = sql.indexOf(quote, i);
    if (end === -1) throw new SqlLexError(problem);
    if (sql[end + 1] === quote) {
      i = end + 2;
      continue;
    }
    return end + 1;
  }
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= "0" && c <= "9";
}

function isWordStart(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_" || c.charCodeAt(0) >= 0x80;
}

function isWordChar(c: string): boolean {
  return isWordStart(c) || isDigit(c);
}
