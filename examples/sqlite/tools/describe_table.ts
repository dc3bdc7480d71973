import {
  arrayProp,
  boolProp,
  type Infer,
  intProp,
  json,
  type JsonSchema,
  schema,
  strProp,
  type Tool,
  type ToolHandler,
} from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { TOOL_TIMEOUT_MS } from "../domain/config.ts";

const nullableString: JsonSchema = { type: ["string", "null"] };

const input = schema({ table: strProp("The table or view, as list_tables shows it", { minLength: 1 }) }, ["table"]);
type Input = Infer<typeof input>;

/** `describe_table {table}`: the columns, indexes and foreign keys of one table or view. */
export const describeTableTool: Tool<Input> = {
  name: "describe_table",
  title: "Describe a table",
  description: "Describes one table or view: its CREATE statement, columns (name, declared type, NOT NULL, " +
    "default, position in the primary key), indexes and foreign keys, each list up to 10,000 entries (`truncated` " +
    "says one was cut; run_query reads the rest, e.g. SELECT * FROM pragma_index_list(?) LIMIT -1 OFFSET 10000). " +
    "The name is matched as SQLite does (ignoring ASCII case); list_tables shows the names.",
  inputSchema: input,
  outputSchema: schema({
    name: strProp("The table's name as stored"),
    type: { type: "string", enum: ["table", "view"] },
    sql: { ...nullableString, description: "The statement that created it" },
    columns: arrayProp(
      schema({
        name: strProp("The column"),
        type: strProp("Its declared type (may be empty)"),
        not_null: boolProp("Whether it is NOT NULL"),
        default: { ...nullableString, description: "Its default, as SQL text" },
        primary_key: intProp("Its position in the primary key, 0 when not part of it"),
      }, ["name", "type", "not_null", "default", "primary_key"]),
      "The columns, in order",
    ),
    indexes: arrayProp(
      schema({
        name: strProp("The index"),
        unique: boolProp("Whether it is UNIQUE"),
        origin: strProp('"c" (CREATE INDEX), "u" (UNIQUE constraint) or "pk" (primary key)'),
        partial: boolProp("Whether it has a WHERE clause"),
      }, ["name", "unique", "origin", "partial"]),
      "The indexes",
    ),
    foreign_keys: arrayProp(
      schema({
        column: strProp("The column here"),
        table: strProp("The table it refers to"),
        to: { ...nullableString, description: "The column there (null: its primary key)" },
        on_update: strProp("The ON UPDATE action"),
        on_delete: strProp("The ON DELETE action"),
      }, ["column", "table", "to", "on_update", "on_delete"]),
      "The foreign keys, one entry per column",
    ),
    truncated: boolProp("Whether a list was cut at 10,000 entries (the one holding 10,000)"),
  }, ["name", "type", "sql", "columns", "indexes", "foreign_keys", "truncated"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: TOOL_TIMEOUT_MS,
};

/**
 * The handler of {@linkcode describeTableTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function describeTable(mgr: Manager): ToolHandler<Input> {
  return async (req) => json({ ...await mgr.describeTable(req.arguments.table, req.signal) });
}
