// The bare official SDK: the low-level `Server` with hand-written request
// handlers over the SDK's own `StdioServerTransport`. This is the baseline
// every ratio in the benchmark table is taken against.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

const server = new Server({ name: "bench-sdk-lowlevel", version: "0.0.0" }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, () => ({
  tools: [
    {
      name: "echo",
      description: "Returns its text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    {
      name: "sleep",
      description: "Waits ms milliseconds",
      inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request: CallToolRequest) => {
  const args = request.params.arguments ?? {};
  if (request.params.name === "echo") return { content: [{ type: "text", text: String(args.text) }] };
  if (request.params.name === "sleep") {
    await new Promise((resolve) => setTimeout(resolve, Number(args.ms)));
    return { content: [{ type: "text", text: "slept" }] };
  }
  return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
});

await server.connect(new StdioServerTransport());
