import { DEFAULT_LIMITS } from "./policy.ts";
import { PolicyError } from "./policy_error.ts";
import { splitSqlStatements, SqlLexError, type SqlToken, tokenizeSql } from "./sql_tokens.ts";

/** Options of {@linkcode singleSqlStatement}. */
export interface SingleSqlStatementOptions {
  /**
   * The longest SQL accepted, in characters.
   * @default {100000}
   */
  maxLength?: number;
  /**
   * What the refusal says could not be done: `Cannot <action>: …`.
   * @default {"run query"}
   */
  action?: string;
}

/**
 * The first step of every SQL guard: the caller's text as the tokens of
 * exactly one statement (without the trailing `;`). Refuses text that is not
 * a string, too long, holds a NUL byte, does not lex (an unterminated string
 * or comment), is empty, or holds more than one statement — before anything
 * looks at what the statement does.
 *
 * @param sql The SQL as the caller gave it.
 * @param options The length cap and the refusal's action.
 * @returns The statement's tokens.
 * @throws {PolicyError} With code `sql` when the text is refused.
 *
 * @example Two statements are refused, one is tokenized
 * ```ts
 * import { PolicyError, singleSqlStatement } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(singleSqlStatement("DELETE FROM t;").map((t) => t.text), ["DELETE", "FROM", "t"]);
 * assert.throws(() => singleSqlStatement("SELECT 1; DROP TABLE t", { action: "execute" }), PolicyError);
 * ```
 */
export function singleSqlStatement(sql: string, options: SingleSqlStatementOptions = {}): SqlToken[] {
  const max = options.maxLength ?? DEFAULT_LIMITS.maxSqlLength;
  const refuse = (state: string): never => {
    throw new PolicyError("sql", `Cannot ${options.action ?? "run query"}: ${state}`);
  };
  if (typeof sql !== "string") refuse("the SQL must be a string");
  if (sql.length > max) refuse(`the SQL is longer than ${max} characters`);
  if (sql.includes("\0")) refuse("the SQL contains a NUL byte");
  let tokens: SqlToken[] = [];
  try {
    tokens = tokenizeSql(sql);
  } catch (err) {
    if (err instanceof SqlLexError) refuse(err.message);
    throw err;
  }
  const statements = splitSqlStatements(tokens);
  if (statements.length === 0) refuse("the SQL is empty");
  if (statements.length > 1) refuse(`exactly one statement is allowed, found ${statements.length}`);
  return statements[0];
}
