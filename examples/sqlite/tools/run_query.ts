import {
  arrayProp,
  boolProp,
  enumProp,
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
import { PARAMS_PROP, sqlArgs } from "./_sql_args.ts";
import { TOOL_TIMEOUT_MS } from "../domain/config.ts";

const VALUE: JsonSchema = {
  anyOf: [
    { type: "null" },
    { type: "number" },
    { type: "string" },
    { type: "object", properties: { $base64: { type: "string" } }, required: ["$base64"], additionalProperties: false },
  ],
};

const input = schema({ sql: strProp("One read-only SQL statement", { minLength: 1 }), params: PARAMS_PROP }, ["sql"]);
type Input = Infer<typeof input>;

/** `run_query {sql, params?}`: one read-only query, rows as JSON. */
export const runQueryTool: Tool<Input> = {
  name: "run_query",
  title: "Run a read-only SQL query",
  description: "Runs one read-only SQLite statement: SELECT, WITH … SELECT, EXPLAIN [QUERY PLAN], or a schema " +
    "PRAGMA such as table_info(t). Pass values through `params`, never inside the SQL. Returns at most the " +
    "server's max_rows rows and 1 MiB; `truncated` and `limit` say there were more (select fewer or shorter " +
    "columns, add LIMIT/OFFSET or narrow the WHERE). Values: " +
    'integers outside ±2^53 come back as decimal strings, blobs as {"$base64": "…"}, infinite floats as ' +
    '"Infinity"/"-Infinity". Give duplicate column names distinct aliases. A query that runs past the server\'s ' +
    "deadline (5 s by default) is answered with an error: avoid unbounded sorts or aggregates over huge joins.",
  inputSchema: input,
  outputSchema: schema({
    columns: arrayProp(strProp("A column name"), "The result's columns, in order"),
    rows: arrayProp({ type: "object", additionalProperties: VALUE }, "The rows, keyed by column name"),
    row_count: intProp("How many rows are in rows", { minimum: 0 }),
    truncated: boolProp("Whether there were more rows than returned"),
    limit: enumProp(["max_rows", "max_bytes"], "Which limit cut the rows (only when truncated)"),
  }, ["columns", "rows", "row_count", "truncated"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: TOOL_TIMEOUT_MS,
};

/**
 * The handler of {@linkcode runQueryTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function runQuery(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { sql, params } = sqlArgs(req.arguments);
    return json({ ...await mgr.query(sql, params, req.signal) });
  };
}
