/**
 * The core: serve tools over stdio.
 *
 * @module
 */
export {
  type Args,
  getBool,
  getInt,
  getIntArray,
  getString,
  getStringArray,
  getStringMap,
  requestArgs,
  requireString,
} from "./args.ts";
export type { ArrayOptions } from "./args.ts";
export { health } from "./health.ts";
export { type PatternToolOptions, registerPatternTool } from "./pattern_tool.ts";
export type {
  AskOptions,
  ClientCapability,
  ClientRoot,
  ElicitAnswer,
  ElicitForm,
  SampleAnswer,
  SampleRequest,
} from "./client_input.ts";
export { MissingCapabilityError } from "./missing_capability_error.ts";
export { error, json, text } from "./result.ts";
export type {
  AudioContent,
  BlobResourceContents,
  Content,
  ContentAnnotations,
  ContentBlock,
  EmbeddedResource,
  Icon,
  ImageContent,
  ResourceLinkContent,
  TextContent,
  TextResourceContents,
  ToolResult,
} from "./result.ts";
export {
  arrayProp,
  boolProp,
  enumProp,
  intProp,
  numProp,
  objectProp,
  schema,
  stringMapProp,
  strProp,
} from "./schema.ts";
export type {
  Infer,
  JsonSchema,
  JsonType,
  ObjectSchema,
  ObjectValue,
  Prop,
  PropOptions,
  SchemaOptions,
} from "./schema.ts";
export { addTool, Server, type ServerInfo } from "./server.ts";
export type {
  ClientInfo,
  PatternFn,
  Patterns,
  TaskOptions,
  Tool,
  ToolAnnotations,
  ToolHandler,
  ToolRequest,
} from "./tool.ts";
export { ArgumentError, ToolError } from "../internal/tool_error.ts";
export type { CallContext, Middleware, MiddlewareScope, Next } from "./middleware.ts";
export { run, type RunOptions } from "./run.ts";
export {
  type Closable,
  type ConfigSource,
  type LoadedConfig,
  runWithConfig,
  type RunWithConfigOptions,
} from "./run_with_config.ts";
// serve() and StdioTransport live in @forge/toolkit/stdio (stdio/mod.ts): run()
// loads them when it starts, so `--health` never does. Types cost nothing.
export type { ServeOptions } from "./serve.ts";
// Named by RunOptions and RunWithConfigOptions, so this entry point documents on
// its own; their functions live in @forge/toolkit/validate and /configreload.
export type { Limits, NetPolicy, Policy } from "../validate/policy.ts";
export type { ConfigSchema, SchemaIssue, SchemaResult } from "../configreload/from_schema.ts";
// The audit trail and the limits live in @forge/toolkit/middleware (middleware/mod.ts).
