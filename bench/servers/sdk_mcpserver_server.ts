// The official SDK's high-level `McpServer` with zod input schemas, over the
// SDK's own `StdioServerTransport`: what most SDK users write.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const server = new McpServer({ name: "bench-sdk-mcpserver", version: "0.0.0" });

server.registerTool(
  "echo",
  { description: "Returns its text", inputSchema: { text: z.string() } },
  ({ text }: { text: string }) => ({ content: [{ type: "text", text }] }),
);

server.registerTool(
  "sleep",
  { description: "Waits ms milliseconds", inputSchema: { ms: z.number().int() } },
  async ({ ms }: { ms: number }) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return { content: [{ type: "text", text: "slept" }] };
  },
);

await server.connect(new StdioServerTransport());
