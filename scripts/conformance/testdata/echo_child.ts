// A stdio child for bridge_test.ts that shows exactly what reached it: each
// request is answered with the line as it arrived, and a few params make it
// answer the other ways a server does (an error, a notification first, a
// request of its own to the client).

const lines: string[] = [];
const waiting = new Map<string, (line: string) => void>();
const encoder = new TextEncoder();
const write = (message: unknown): void => void Deno.stdout.writeSync(encoder.encode(`${JSON.stringify(message)}\n`));

async function answer(line: string): Promise<void> {
  let message: Record<string, unknown>;
  try {
    message = JSON.parse(line);
  } catch {
    write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } });
    return;
  }
  if (typeof message.method !== "string") {
    waiting.get(String(message.id))?.(line);
    return;
  }
  if (!("id" in message)) return;
  // Held: never answered, so the client can close the stream or reuse the id meanwhile.
  if ((message.params as Record<string, unknown> | undefined)?.hold === true) return;
  const id = message.id;
  const params = (message.params ?? {}) as Record<string, unknown>;
  if (params.error !== undefined) return write({ jsonrpc: "2.0", id, error: params.error });
  if (params.notifyFirst === true) {
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    write({
      jsonrpc: "2.0",
      method: "notifications/progress",
      params: { progressToken: meta.progressToken, progress: 1 },
    });
  }
  if (params.ask === true) {
    const reply = new Promise<string>((resolve) => waiting.set("srv-1", resolve));
    write({ jsonrpc: "2.0", id: "srv-1", method: "elicitation/create", params: { message: "?" } });
    return write({ jsonrpc: "2.0", id, result: { clientAnswered: await reply } });
  }
  write({ jsonrpc: "2.0", id, result: { line, seen: lines.slice(0, -1) } });
}

let rest = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  rest += chunk;
  let end: number;
  while ((end = rest.indexOf("\n")) >= 0) {
    const line = rest.slice(0, end);
    rest = rest.slice(end + 1);
    lines.push(line);
    void answer(line);
  }
}
