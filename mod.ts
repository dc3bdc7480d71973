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
// serve() and StdioTransport (and ServeOptions, which RunOptions extends) live
// in @forge/toolkit/stdio: run() loads them when it starts, so `--health` never
// does. The policy types are @forge/toolkit/validate's, the config types
// @forge/toolkit/configreload's, the audit trail and limits
// @forge/toolkit/middleware's.
