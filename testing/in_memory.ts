import { Client } from "@modelcontextprotocol/sdk/client";
import type { McpClient } from "./client.ts";
import type { Server } from "@forge/toolkit";
import { type Connection, serve, type ServeOptions, StdioTransport } from "@forge/toolkit/stdio";
import { memoryPipe } from "./memory_pipe.ts";

/** Options of {@linkcode connectInMemory}. */
export interface InMemoryOptions {
  /** Options for the served side (timeouts, limits, middleware). */
  serve?: ServeOptions;
  /**
   * The client's name and version.
   * @default {{ name: "forge-test-client", version: "0.0.0" }}
   */
  clientInfo?: { name: string; version: string };
}

/** A client connected to a server in the same process. */
export interface InMemorySession {
  /** The official SDK client, initialized. */
  client: McpClient;
  /** The served connection. */
  connection: Connection;
  /** Every line the server wrote, in order (raw JSON text). */
  lines: string[];
  /** Closes the client and waits for the server side to finish. */
  close(): Promise<void>;
}

/**
 * Connects the official MCP SDK `Client` to `server` in memory. Both sides go
 * through the toolkit's real framer over an in-memory byte pipe, so framing is
 * tested too, and `lines` records everything the server wrote.
 *
 * @param server The server, with its tools registered.
 * @param options See {@linkcode InMemoryOptions}.
 * @returns The connected session.
 *
 * @example Call a tool in memory
 * ```ts
 * import { addTool, schema, Server, text } from "@forge/toolkit";
 * import { connectInMemory } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const server = new Server({ name: "demo" });
 * addTool(server, {
 *   name: "ping_tool",
 *   description: "Answers pong",
 *   inputSchema: schema(),
 *   annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 * }, () => text("pong"));
 * const session = await connectInMemory(server);
 * const result = await session.client.callTool({ name: "ping_tool", arguments: {} });
 * assert.deepEqual(result.content, [{ type: "text", text: "pong" }]);
 * await session.close();
 * ```
 */
export async function connectInMemory(server: Server, options: InMemoryOptions = {}): Promise<InMemorySession> {
  const toServer = memoryPipe();
  const toClient = memoryPipe();
  const connection = serve(server, { reader: toServer.reader, writer: toClient.writer }, {
    log: () => {},
    ...options.serve,
  });
  const lines: string[] = [];
  const transport = new StdioTransport({
    reader: toClient.reader,
    writer: toServer.writer,
    role: "client",
    onLine: (line) => lines.push(line),
  });
  const client = new Client(options.clientInfo ?? { name: "forge-test-client", version: "0.0.0" });
  await client.connect(transport);
  return {
    client: client as unknown as McpClient,
    connection,
    lines,
    async close() {
      toServer.close();
      await connection.closed;
      toClient.close();
      await client.close();
    },
  };
}
