import { type Infer, json, type PatternFn, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { PARAMS_PROP, sqlArgs } from "./_sql_args.ts";
import { TOOL_TIMEOUT_MS } from "../domain/config.ts";

const input = schema({
  sql: strProp("One SQL statement that changes the database", { minLength: 1 }),
  params: PARAMS_PROP,
}, ["sql"]);
type Input = Infer<typeof input>;

/** `execute {sql, params?}`: one write, only when the config says `"writable": true`. */
export const executeTool: Tool<Input> = {
  name: "execute",
  title: "Change the database",
  description: "Runs one statement that changes the database: INSERT, REPLACE, UPDATE, DELETE (optionally after " +
    "WITH), CREATE TABLE / [UNIQUE] INDEX / VIEW, DROP TABLE / INDEX / VIEW, or ALTER TABLE. One statement per " +
    "call, committed on its own; no transactions, ATTACH, PRAGMA, VACUUM, triggers, RETURNING. Pass values " +
    "through `params`. Permission patterns: sql:<insert|update|delete|ddl>:<table> for every table the statement " +
    "may change, including through triggers and foreign-key cascades. Returns changes and last_insert_rowid.",
  inputSchema: input,
  // No outputSchema: a probe answers without structuredContent, and the official SDK client
  // refuses a result without it for a tool that declares one.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  timeoutMs: TOOL_TIMEOUT_MS,
};

/**
 * The permission patterns of a write: SQLite compiles it (on the read-only
 * connection, so nothing runs) and names every table it would change.
 *
 * @param mgr The manager.
 * @returns The pattern function.
 */
export function executePatterns(mgr: Manager): PatternFn<Input> {
  return async (args, signal) => ({ patterns: await mgr.writePatterns(args.sql, signal) });
}

/**
 * The handler of {@linkcode executeTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function execute(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { sql, params } = sqlArgs(req.arguments);
    // The patterns this call was approved and audited under: the write is held to them.
    return json({ ...await mgr.execute(sql, params, req.signal, req.patterns) });
  };
}
