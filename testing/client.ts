/** Per-request options the SDK client accepts. */
export interface RequestOptions {
  /** Aborts the request (the client sends `notifications/cancelled`). */
  signal?: AbortSignal;
  /** Client-side timeout in milliseconds. */
  timeout?: number;
}

/** A tool as `tools/list` returned it. */
export interface ListedTool {
  /** The tool's name. */
  name: string;
  /** Its display title. */
  title?: string;
  /** Its description. */
  description?: string;
  /** Its input schema. */
  inputSchema: Record<string, unknown>;
  /** Its output schema. */
  outputSchema?: Record<string, unknown>;
  /** Its annotation hints. */
  annotations?: Record<string, unknown>;
}

/** A `tools/call` result as the client returns it. */
export interface CallResult {
  /** The content blocks. */
  content: unknown[];
  /** The structured result. */
  structuredContent?: unknown;
  /** True for a domain error. */
  isError?: boolean;
  /** Result metadata (probe patterns live here). */
  _meta?: Record<string, unknown>;
}

/**
 * The parts of the official MCP SDK `Client` that the testing helpers use.
 * The object is the SDK's own `Client`; this interface only names what tests
 * typically need, so the SDK's large type tree stays out of this module's API.
 *
 * @example Call a tool
 * ```ts ignore
 * import type { McpClient } from "@forge/toolkit/testing";
 *
 * async function greet(client: McpClient) {
 *   const result = await client.callTool({ name: "hello", arguments: { name: "Ann" } });
 *   return result.content;
 * }
 * ```
 */
export interface McpClient {
  /** Lists the server's tools. */
  listTools(params?: { cursor?: string }, options?: RequestOptions): Promise<{ tools: ListedTool[] }>;
  /** Calls a tool. A JSON-RPC error rejects; an `isError` result resolves. */
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: RequestOptions,
  ): Promise<CallResult>;
  /** The server's name and version from `initialize`. */
  getServerVersion(): { name: string; version: string } | undefined;
  /** The server's capabilities from `initialize`. */
  getServerCapabilities(): Record<string, unknown> | undefined;
  /** The server's instructions from `initialize`. */
  getInstructions(): string | undefined;
  /** Closes the connection. */
  close(): Promise<void>;
}
