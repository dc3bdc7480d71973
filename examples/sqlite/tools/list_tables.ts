import { arrayProp, boolProp, json, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { TOOL_TIMEOUT_MS } from "../domain/config.ts";

/** `list_tables {}`: the database's tables and views. */
export const listTablesTool: Tool = {
  name: "list_tables",
  title: "List tables",
  description: "Lists the tables and views of the database (SQLite's own sqlite_* tables left out), sorted by " +
    "name. Use describe_table for the columns of one.",
  inputSchema: schema(),
  outputSchema: schema({
    tables: arrayProp(
      schema({ name: strProp("The table's name"), type: { type: "string", enum: ["table", "view"] } }, [
        "name",
        "type",
      ]),
      "The tables and views",
    ),
    truncated: boolProp("Whether the list was cut"),
  }, ["tables", "truncated"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: TOOL_TIMEOUT_MS,
};

/**
 * The handler of {@linkcode listTablesTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function listTables(mgr: Manager): ToolHandler {
  return async (req) => json({ ...await mgr.listTables(req.signal) });
}
