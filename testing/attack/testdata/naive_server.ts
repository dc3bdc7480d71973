// A server written without the toolkit, the way many are: it parses ids into
// numbers, matches methods without regard to case, prints a debug line on
// stdout, logs every call synchronously to stderr, keeps 48 MiB for every large
// line it reads, and never exits at the end of its input. attack_test.ts proves the
// kit finds each of these.
const encoder = new TextEncoder();
const kept: Uint8Array[] = [];
const tools = [{
  name: "echo",
  description: "Echoes a text",
  inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
}];

function reply(id: unknown, result: unknown): void {
  Deno.stdout.writeSync(encoder.encode(JSON.stringify({ jsonrpc: "2.0", id, result }) + "\n"));
}

function handle(line: string): void {
  if (line.length > 60_000) kept.push(new Uint8Array(48 << 20).fill(line.length & 0xff));
  let message: { id?: unknown; method?: string; params?: { arguments?: { text?: unknown } } };
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof message !== "object" || message === null || message.id === undefined) return;
  const method = String(message.method).toLowerCase().trim();
  Deno.stderr.writeSync(encoder.encode(`call ${method} ${JSON.stringify(message.params ?? {})}\n`));
  if (method === "initialize") {
    Deno.stdout.writeSync(encoder.encode("naive server ready\n"));
    reply(message.id, {
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "naive", version: "0" },
    });
  } else if (method === "tools/list") {
    reply(message.id, { tools });
  } else if (method === "tools/call") {
    reply(message.id, { content: [{ type: "text", text: String(message.params?.arguments?.text) }] });
  }
}

setInterval(() => {}, 60_000);
let rest = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  rest += chunk;
  let nl: number;
  while ((nl = rest.indexOf("\n")) >= 0) {
    handle(rest.slice(0, nl));
    rest = rest.slice(nl + 1);
  }
}
