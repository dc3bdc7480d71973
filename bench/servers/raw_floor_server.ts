// The floor: a careful raw JSON-RPC loop with no library at all. It frames
// bytes in linear time, answers `initialize`, `tools/list` and `tools/call`
// (echo, sleep) and writes every reply produced while handling one read in a
// single write. A call that carries the 2026-07-28 `_meta` envelope gets that
// era's result (`resultType` and the server's `_meta`), so that both eras have
// a floor. No limits, no validation beyond what JSON.parse does: it shows what
// the machine can do, not what a server should do.

/** Where the loop reads from and writes to: stdin and stdout, or memory pipes. */
export interface FloorIo {
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
}

/**
 * A line handled without JSON: appends the reply (with its newline) to
 * `out` and returns true, or returns false to let the floor parse the line.
 * The cat loop uses it.
 */
export type FastPath = (line: Uint8Array, out: ReplyBytes) => boolean;

/** Reply bytes gathered while one read is handled, in one buffer reused from read to read. */
export class ReplyBytes {
  #buffer = new Uint8Array(64 * 1024);
  #length = 0;

  /** Appends `bytes`. */
  append(bytes: Uint8Array): void {
    if (this.#length + bytes.length > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, this.#length + bytes.length));
      grown.set(this.#buffer.subarray(0, this.#length));
      this.#buffer = grown;
    }
    this.#buffer.set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /** A copy of what was appended (the write may outlive the next read), and empties the buffer. */
  take(): Uint8Array {
    const bytes = this.#buffer.slice(0, this.#length);
    this.#length = 0;
    return bytes;
  }

  /** Bytes appended since the last take. */
  get length(): number {
    return this.#length;
  }
}

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
// What every 2026-07-28 result carries, as JSON members spliced before the result's closing brace.
const MODERN_MEMBERS = `"resultType":"complete","_meta":${
  JSON.stringify({ "io.modelcontextprotocol/serverInfo": { name: "bench-raw-floor", version: "0.0.0" } })
}`;

if (import.meta.main) {
  if (Deno.args.includes("--health")) console.log("ok");
  else {
    await serveFloor({
      read: (buffer) => Deno.stdin.read(buffer),
      write: (bytes) => Deno.stdout.write(bytes),
    });
  }
}

/** Serves `io` until its input ends; `fast` may answer a line before it is parsed. */
export async function serveFloor(io: FloorIo, fast?: FastPath): Promise<void> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const buffer = new Uint8Array(64 * 1024);
  let parts: Uint8Array[] = [];
  let pendingBytes = 0;
  let out: string[] = [];
  const quick = new ReplyBytes();
  let writing: Promise<void> = Promise.resolve();

  const flush = () => {
    if (quick.length > 0) {
      const bytes = quick.take();
      writing = writing.then(() => writeAll(io, bytes));
    }
    if (out.length === 0) return;
    const bytes = encoder.encode(out.join(""));
    out = [];
    writing = writing.then(() => writeAll(io, bytes));
  };
  const reply = (id: unknown, result: unknown, modern: boolean) => {
    const json = JSON.stringify(result);
    const body = modern ? `${json.slice(0, -1)},${MODERN_MEMBERS}}` : json;
    out.push(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${body}}\n`);
  };
  const handle = (line: Uint8Array) => {
    if (line.length === 0) return;
    if (fast?.(line, quick)) return;
    const msg = JSON.parse(decoder.decode(line));
    if (msg.id === undefined) return;
    const modern = msg.params?._meta?.[META_VERSION] !== undefined;
    switch (msg.method) {
      case "initialize":
        return reply(msg.id, {
          protocolVersion: msg.params?.protocolVersion ?? "2025-06-18",
          capabilities: { tools: {} },
          serverInfo: { name: "bench-raw-floor", version: "0.0.0" },
        }, false);
      case "ping":
        return reply(msg.id, {}, false);
      case "tools/list":
        return reply(msg.id, {
          tools: [
            { name: "echo", inputSchema: { type: "object", properties: { text: { type: "string" } } } },
            { name: "sleep", inputSchema: { type: "object", properties: { ms: { type: "integer" } } } },
          ],
        }, modern);
      case "tools/call": {
        const args = msg.params?.arguments ?? {};
        if (msg.params?.name === "sleep") {
          setTimeout(() => (reply(msg.id, { content: [{ type: "text", text: "slept" }] }, modern), flush()), args.ms);
          return;
        }
        return reply(msg.id, { content: [{ type: "text", text: String(args.text) }] }, modern);
      }
      default:
        out.push(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"no"}}\n`);
    }
  };

  while (true) {
    const n = await io.read(buffer);
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
    // The next read starts once this read's replies are written, as in a plain
    // serial loop: flush() has emptied `out`, so this waits for every write, not
    // only a large one (docs/benchmarks.md, "Taking turns, timed").
    if (out.length === 0) await writing;
  }
  flush();
  await writing;
}

async function writeAll(io: FloorIo, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await io.write(bytes.subarray(offset));
}
