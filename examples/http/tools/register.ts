import { registerPatternTool, type Server } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { fetchUrlHandler, fetchUrlPatterns, fetchUrlTool } from "./fetch_url.ts";

/**
 * Registers the http server's tools: `fetch_url`, a pattern tool whose
 * deadline is the manager's.
 *
 * @param server The server from `run()`'s register function.
 * @param mgr The manager.
 *
 * @example Register on a server
 * ```ts
 * import { Server } from "@forge/toolkit";
 * import { registerAll } from "./register.ts";
 * import { Manager } from "../domain/manager.ts";
 * import { ConfigSchema } from "../domain/config.ts";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "http" });
 * registerAll(server, new Manager(() => Promise.resolve(ConfigSchema.parse({})), { timeoutMs: 10_000 }));
 * assert.deepEqual(server.toolNames, ["fetch_url"]);
 * ```
 */
export function registerAll(server: Server, mgr: Manager): void {
  // What a reply may take is reserved while a call runs: pipelined fetches cannot build more than maxInFlightBytes.
  const tool = { ...fetchUrlTool(mgr.callTimeoutMs), maxResultBytes: () => mgr.replyBytes() };
  registerPatternTool(server, tool, fetchUrlPatterns(mgr), fetchUrlHandler(mgr));
}
