// The README demo: starts examples/hello-tool as a real subprocess with no
// Deno permissions at all, drives it with the official MCP SDK client over
// its stdio, and prints every message that crosses the wire.
import { Client } from "@modelcontextprotocol/sdk/client";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const script = new URL("./main.ts", import.meta.url).pathname;
const transport = new StdioClientTransport({
  command: Deno.execPath(),
  // Deno's node:child_process (which the SDK uses) would hand this process's
  // permissions to a `deno` child without a permission flag of its own; the
  // server needs none, refuses to serve with more, and --deny-run grants nothing.
  args: ["run", "--quiet", "--no-prompt", "--deny-run", script],
  stderr: "inherit",
});
const show = (arrow: string, message: unknown) => {
  const text = JSON.stringify(message);
  console.log(`${arrow} ${text.length > 300 ? text.slice(0, 300) + "…" : text}`);
};
const send = transport.send.bind(transport);
transport.send = (message: Parameters<typeof send>[0], options?: Parameters<typeof send>[1]) => {
  show("client →", message);
  return send(message, options);
};
const client = new Client({ name: "forge-demo", version: "0.1.0" });
const connected = client.connect(transport);
const onmessage = transport.onmessage;
transport.onmessage = (
  message: Parameters<NonNullable<typeof onmessage>>[0],
  extra?: Parameters<NonNullable<typeof onmessage>>[1],
) => {
  show("server ←", message);
  onmessage?.(message, extra);
};
await connected;

console.log(`\nconnected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}\n`);
const { tools } = await client.listTools();
console.log(`\ntools: ${tools.map((t) => t.name).join(", ")}\n`);
const hello = await client.callTool({ name: "hello", arguments: { name: "world" } });
console.log(`\nhello → ${JSON.stringify(hello.content)}\n`);
const bad = await client.callTool({ name: "hello", arguments: {} });
console.log(`\nmissing argument → isError=${bad.isError}: ${JSON.stringify(bad.content)}\n`);
await client.close();
console.log("closed: the server saw end of input and exited");
