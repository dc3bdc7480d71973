/**
 * @forge/toolkit — write small, least-privilege MCP servers that speak
 * JSON-RPC over stdio.
 *
 * @module
 */
export * from "./toolkit/mod.ts";
export { run, type RunOptions } from "./runner/run.ts";
export {
  type Closable,
  type ConfigSource,
  type LoadedConfig,
  runWithConfig,
  type RunWithConfigOptions,
} from "./runner/run_with_config.ts";
// serve() and StdioTransport live in @forge/toolkit/stdio (stdio/mod.ts): run()
// loads them when it starts, so `--health` never does. Types cost nothing.
export type { ServeOptions } from "./stdio/serve.ts";
// Named by RunOptions and RunWithConfigOptions, so this entry point documents on
// its own; their functions live in @forge/toolkit/validate and /configreload.
export type { Limits, NetPolicy, Policy } from "./validate/policy.ts";
export type { ConfigSchema, SchemaIssue, SchemaResult } from "./configreload/from_schema.ts";
// The audit trail and the limits live in @forge/toolkit/middleware (middleware/mod.ts).
