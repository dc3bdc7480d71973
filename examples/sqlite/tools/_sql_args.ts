// The arguments run_query and execute share: `sql`, and `params` bound to its placeholders.
import { type JsonSchema, requireString, type ToolRequest } from "@forge/toolkit";
import { type SqlParams, toSqlParams } from "../domain/values.ts";

/** The input schema of `params`: an array for `?` placeholders, an object for named ones. */
export const PARAMS_PROP: JsonSchema = {
  type: ["array", "object"],
  description: "Values for the placeholders: an array for ?, ?1…, an object for :name, @name, $name. Strings, " +
    'numbers, booleans (bound as 1/0), null, or {"$base64": "…"} for a blob. Always bound, never spliced into the SQL.',
};

/**
 * Reads `sql` and `params` from a call's arguments.
 *
 * @param args The call's arguments.
 * @returns The SQL and the values to bind.
 * @throws {ToolError} When `sql` is missing or `params` cannot be bound.
 */
export function sqlArgs(args: ToolRequest["arguments"]): { sql: string; params: SqlParams } {
  const sql = requireString(args, "sql");
  return { sql, params: toSqlParams(Object.hasOwn(args, "params") ? args.params : undefined) };
}
