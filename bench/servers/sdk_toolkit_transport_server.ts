// The SDK's low-level `Server` (the same handlers as sdk_lowlevel_server.ts)
// over the toolkit's own SDK-compatible `StdioTransport` instead of the SDK's
// `StdioServerTransport`. Against the bare SDK it isolates the cost of the
// stdio path; against the toolkit server it isolates the SDK's protocol layer
// (per-request zod validation) against the toolkit's dispatcher. If the
// toolkit does not export `StdioTransport`, it exits with code 3 and the
// benchmark reports the server as unavailable.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  type CallToolRequest,
  CallToolRequestSchema,
  ListToolsRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import * as toolkit from "@forge/toolkit/stdio";

const Transport = (toolkit as Record<string, unknown>).StdioTransport as (new () => Transport) | undefined;
if (Transport === undefined) {
  console.error("@forge/toolkit exports no StdioTransport");
  Deno.exit(3);
}

const server = new Server({ name: "bench-sdk-toolkit-transport", version: "0.0.0" }, {
  capabilities: { tools: {} },
});

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

await server.connect(new Transport());
