// What the official SDK's protocol layer spends per request on validation,
// for the decision record in docs/benchmarks.md. Run with
// `deno bench --no-lock bench/sdk_validation_bench.ts`.
import { CallToolRequestSchema, CallToolResultSchema, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";

const line = '{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}';
const bytes = new TextEncoder().encode(line);
const fatal = new TextDecoder("utf-8", { fatal: true });
const lenient = new TextDecoder();
const result = { content: [{ type: "text", text: "hi" }] };
let sink: unknown;

Deno.bench("decode + JSON.parse (every server pays this)", { group: "request", baseline: true }, () => {
  sink = JSON.parse(lenient.decode(bytes));
});

Deno.bench("strict UTF-8 decode + JSON.parse", { group: "request" }, () => {
  sink = JSON.parse(fatal.decode(bytes));
});

Deno.bench("SDK transport: JSONRPCMessageSchema.parse", { group: "request" }, () => {
  sink = JSONRPCMessageSchema.parse(JSON.parse(lenient.decode(bytes)));
});

Deno.bench("SDK transport + Protocol: also CallToolRequestSchema.parse", { group: "request" }, () => {
  sink = CallToolRequestSchema.parse(JSONRPCMessageSchema.parse(JSON.parse(lenient.decode(bytes))));
});

Deno.bench("SDK: CallToolResultSchema.parse of the reply", { group: "result" }, () => {
  sink = CallToolResultSchema.parse(result);
});

Deno.bench("JSON.stringify of the reply", { group: "result", baseline: true }, () => {
  sink = JSON.stringify({ jsonrpc: "2.0", id: 42, result });
});

globalThis.addEventListener("unload", () => void sink);
