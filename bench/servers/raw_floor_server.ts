// The floor: a careful raw JSON-RPC loop with no library at all. It frames
// bytes in linear time, answers `initialize`, `tools/list` and `tools/call`
// (echo, sleep) and writes every reply produced while handling one read in a
// single write. No limits, no validation beyond what JSON.parse does: it
// shows what the machine can do, not what a server should do.

if (Deno.args.includes("--health")) {
  console.log("ok");
} else {
  await serve();
}

async function serve(): Promise<void> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let parts: Uint8Array[] = [];
  let pendingBytes = 0;
  let out: string[] = [];
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (out.length === 0) return;
    const bytes = encoder.encode(out.join(""));
    out = [];
    writing = writing.then(() => writeAll(bytes));
  };
  const reply = (id: unknown, result: unknown) => {
    out.push(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result)}}\n`);
  };
  const handle = (line: Uint8Array) => {
    if (line.length === 0) return;
    const msg = JSON.parse(decoder.decode(line));
    if (msg.id === undefined) return;
    switch (msg.method) {
      case "initialize":
        return reply(msg.id, {
          protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "bench-raw-floor", version: "0.0.0" },
        });
      case "ping":
        return reply(msg.id, {});
      case "tools/list":
        return reply(msg.id, {
          tools: [
            { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
            { name: "sleep", inputSchema: { type: "object", properties: { ms: { type: "integer" } } } },
          ],
        });
      case "tools/call": {
        const args = msg.params?.arguments ?? {};
        if (msg.params?.name === "sleep") {
          setTimeout(() => (reply(msg.id, { content: [{ type: "text", text: "slept" }] }), flush()), args.ms);
          return;
        }
        return reply(msg.id, { content: [{ type: "text", text: String(args.text) }] });
      }
      default:
        out.push(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"no"}}\n`);
    }
  };

  while (true) {
    const n = await Deno.stdin.read(buffer);
    if (n === null) break;
    const chunk = buffer.subarray(0, n);
    let start = 0;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      if (pendingBytes === 0) handle(piece);
      else {
        parts.push(piece);
        const line = new Uint8Array(pendingBytes + piece.length);
        let at = 0;
        for (const part of parts) (line.set(part, at), at += part.length);
        parts = [];
        pendingBytes = 0;
        handle(line);
      }
      start = nl + 1;
    }
    if (start < n) {
      parts.push(chunk.slice(start));
      pendingBytes += n - start;
    }
    flush();
    // Backpressure: do not read more while a large reply is still going out.
    if (out.length === 0) await writing;
  }
  flush();
  await writing;
}

async function writeAll(bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await Deno.stdout.write(bytes.subarray(offset));
}
