// The arguments run_query and execute share: `sql`, and `params` bound to its placeholders.
import type { JsonSchema } from "@forge/toolkit";
import { type SqlParams, toSqlParams } from "../domain/values.ts";

/**
 * The input schema of `params`: an array for `?` placeholders, an object for named ones. Written by hand (the
 * helpers have no "array or object"), so the schema checks it but TypeScript types it `unknown`: `toSqlParams`
 * reads it.
 */
export const PARAMS_PROP: JsonSchema = {
  type: ["array", "object"],
  description: "Values for the placeholders: an array for ?, ?1…, an object for :name, @name, $name. Strings, " +
    'numbers, booleans (bound as 1/0), null, or {"$base64": "…"} for a blob. Always bound, never spliced into the SQL.',
};

/**
 * The SQL and the values to bind, from a call's checked arguments.
 *
 * @param args The call's arguments, as their schema typed them.
 * @returns The SQL and the values to bind.
 * @throws {ToolError} When `params` cannot be bound.
 */
export function sqlArgs(args: { sql: string; params?: unknown }): { sql: string; params: SqlParams } {
  return { sql: args.sql, params: toSqlParams(args.params) };
}
