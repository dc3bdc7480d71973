/**
 * What an author writes a server with: the server, tools, schemas, arguments
 * and results. The root entry point (`mod.ts`) re-exports it with `run()` and
 * `runWithConfig()` from `runner/`.
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
export type * from "./client_input.ts";
export { MissingCapabilityError } from "./missing_capability_error.ts";
export { error, json, text, textWithNotice } from "./result.ts";
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
export * from "./schema.ts";
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
export type { CallContext, ExactId, Middleware, MiddlewareScope, Next } from "./middleware.ts";
