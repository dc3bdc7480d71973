// A server that imports the toolkit's root module (so the early stdout guard
// goes up) and then serves by itself, with serve() on Deno.stdout, or with
// `transport` as its first argument, the toolkit's StdioTransport. Needs no permission.
import { addTool, schema, Server, text } from "@forge/toolkit";
import { serve, StdioTransport } from "@forge/toolkit/stdio";

console.log("before serving");
if (Deno.args[0] === "transport") {
  const transport = new StdioTransport();
  transport.onmessage = (message) => {
    if ("id" in message) void transport.send({ jsonrpc: "2.0", id: message.id, result: { echoed: true } });
  };
  await transport.start();
} else {
  const server = new Server({ name: "own" });
  const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  addTool(server, { name: "hi", description: "Says hi", inputSchema: schema(), annotations: RO }, () => text("hi"));
  await serve(server, { reader: Deno.stdin, writer: Deno.stdout }).closed;
}
