import { addTool, registerPatternTool, type Server } from "@forge/toolkit";
import type { Config } from "../domain/config.ts";
import type { Manager } from "../domain/manager.ts";
import { REPLY_BYTES } from "../domain/reply_bounds.ts";
import { describeTable, describeTableTool } from "./describe_table.ts";
import { execute, executePatterns, executeTool } from "./execute.ts";
import { listTables, listTablesTool } from "./list_tables.ts";
import { runQuery, runQueryTool } from "./run_query.ts";

/**
 * Registers the three read-only tools, and `execute` (a pattern tool) once
 * the config says `"writable": true` — at start, or when a reload turns it
 * on (the toolkit then sends `notifications/tools/list_changed`). Turning it
 * off again cannot unlist the tool (the toolkit has no way to remove one);
 * `execute` then refuses every call.
 *
 * @param server The server from `run()`.
 * @param mgr The manager.
 * @returns Resolves once the tools are registered.
 */
export async function registerAll(server: Server, mgr: Manager): Promise<void> {
  // What a reply may take is reserved while a call runs: pipelined calls cannot build more than maxInFlightBytes.
  addTool(server, { ...listTablesTool, maxResultBytes: REPLY_BYTES.list_tables }, listTables(mgr));
  addTool(server, { ...describeTableTool, maxResultBytes: REPLY_BYTES.describe_table }, describeTable(mgr));
  addTool(server, { ...runQueryTool, maxResultBytes: REPLY_BYTES.run_query }, runQuery(mgr));
  const addExecute = (config: Config) => {
    if (!config.writable || server.toolNames.includes(executeTool.name)) return;
    const tool = { ...executeTool, maxResultBytes: REPLY_BYTES.execute };
    registerPatternTool(server, tool, executePatterns(mgr), execute(mgr));
  };
  addExecute(await mgr.config());
  mgr.watch(addExecute);
  // A database process starts now, while the client connects, rather than on the first call.
  await mgr.warm();
}
