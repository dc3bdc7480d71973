import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
import { Server as SdkServer } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { StdioTransport } from "@forge/toolkit/stdio";
import { memoryPipe } from "@forge/toolkit/testing";

function pair() {
  const up = memoryPipe();
  const down = memoryPipe();
  return {
    server: new StdioTransport({ reader: up.reader, writer: down.writer, maxMessageBytes: 4096 }),
    client: new StdioTransport({ reader: down.reader, writer: up.writer, role: "client" }),
    up,
    down,
  };
}

/** Ends the input, waits for the server side to close (it flushes first), then reads every line it wrote, as JSON. */
async function repliesAfterClose(
  server: StdioTransport,
  up: ReturnType<typeof memoryPipe>,
  down: ReturnType<typeof memoryPipe>,
): Promise<{ id: unknown; error: { code: number; message: string } }[]> {
  const closed = Promise.withResolvers<void>();
  server.onclose = () => closed.resolve();
  up.close();
  await closed.promise;
  down.close();
  const buf = new Uint8Array(65536);
  let text = "";
  for (let n = await down.reader.read(buf); n !== null; n = await down.reader.read(buf)) {
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text.trim().split("\n").map((l) => JSON.parse(l));
}

Deno.test("StdioTransport carries the official SDK Server and Client", async () => {
  const { server, client } = pair();
  const sdk = new SdkServer({ name: "sdk", version: "1.0.0" }, { capabilities: { tools: {} } });
  sdk.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [] }));
  await sdk.connect(server);
  const c = new Client({ name: "c", version: "1" });
  await c.connect(client);
  assert.deepEqual((await c.listTools()).tools, []);
  await c.close();
  await sdk.close();
});

Deno.test("StdioTransport (server role) answers a bad line with -32700 and an oversize one with the limit", async () => {
  const { server, up, down } = pair();
  const seen: unknown[] = [];
  server.onmessage = (m) => seen.push(m);
  await server.start();
  const enc = new TextEncoder();
  await up.writer.write(enc.encode("not json\n"));
  await up.writer.write(enc.encode(`{"jsonrpc":"2.0","id":5,"method":"x","params":{"p":"${"a".repeat(5000)}"}}\n`));
  await up.writer.write(enc.encode('{"jsonrpc":"2.0","id":6,"method":"ping"}\n'));
  const replies = await repliesAfterClose(server, up, down);
  assert.equal(replies[0].error.code, -32700);
  assert.equal(replies[1].id, 5);
  assert.match(replies[1].error.message, /exceeds the limit of 4096 bytes/);
  assert.deepEqual(seen, [{ jsonrpc: "2.0", id: 6, method: "ping" }]);
});

Deno.test('StdioTransport (server role): an answer over maxMessageBytes or without "jsonrpc": "2.0" fails the server\'s request at once and is never answered', async () => {
  // Before, the transport wrote -32600 under the server's own request id (a reply to a response) and the SDK's
  // request waited for its timeout (60 s by default).
  const { server, up, down } = pair();
  const sdk = new SdkServer({ name: "sdk", version: "1.0.0" }, { capabilities: {} });
  await sdk.connect(server);
  const lines = lineReader(down.reader);
  const pinged = sdk.ping();
  const request = JSON.parse(await lines.next());
  assert.equal(request.method, "ping");
  const enc = new TextEncoder();
  const big = { jsonrpc: "2.0", id: request.id, result: { pad: "x".repeat(5000) } };
  await up.writer.write(enc.encode(JSON.stringify(big) + "\n"));
  await assert.rejects(pinged, (err: Error & { code?: number }) => {
    assert.equal(err.code, -32600);
    assert.match(err.message, /Message too large: \d+ bytes exceeds the limit of 4096 bytes/);
    return true;
  });
  // So does an answer without "jsonrpc": "2.0", which was answered -32600 the same way.
  const again = sdk.ping();
  const second = JSON.parse(await lines.next());
  await up.writer.write(enc.encode(JSON.stringify({ id: second.id, result: {} }) + "\n"));
  await assert.rejects(again, /Invalid response: "jsonrpc" must be "2.0"/);
  // One for no request of the server's is dropped too; the next line out is the answer to the client's own ping.
  await up.writer.write(enc.encode(JSON.stringify({ ...big, id: 77 }) + "\n"));
  await up.writer.write(enc.encode('{"jsonrpc":"2.0","id":"after","method":"ping"}\n'));
  assert.deepEqual(JSON.parse(await lines.next()), { jsonrpc: "2.0", id: "after", result: {} });
  up.close();
  await sdk.close();
});

/** Reads `reader` line by line. */
function lineReader(reader: { read(buf: Uint8Array): Promise<number | null> }): { next(): Promise<string> } {
  const decoder = new TextDecoder();
  const buf = new Uint8Array(65536);
  let text = "";
  return {
    async next() {
      while (!text.includes("\n")) {
        const n = await reader.read(buf);
        if (n === null) throw new Error("the output ended");
        text += decoder.decode(buf.subarray(0, n), { stream: true });
      }
      const at = text.indexOf("\n");
      const line = text.slice(0, at);
      text = text.slice(at + 1);
      return line;
    },
  };
}

Deno.test("StdioTransport refuses a maxMessageBytes that is not a positive number, as serve() does", () => {
  for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
    assert.throws(
      () => new StdioTransport({ maxMessageBytes: bad }),
      (err: Error) =>
        err instanceof RangeError &&
        /^Cannot create the transport: maxMessageBytes must be a positive/.test(err.message),
    );
  }
});

Deno.test("StdioTransport (server role) refuses messages past maxDepth, maxContainers, maxValues or maxKeyBytes before parsing, as serve() does", async () => {
  const up = memoryPipe();
  const down = memoryPipe();
  const server = new StdioTransport({
    reader: up.reader,
    writer: down.writer,
    maxDepth: 10,
    maxContainers: 20,
    maxValues: 40,
    maxKeyBytes: 50,
  });
  const seen: unknown[] = [];
  server.onmessage = (m) => seen.push(m);
  await server.start();
  const enc = new TextEncoder();
  const deep = "[".repeat(12) + "]".repeat(12);
  await up.writer.write(enc.encode(`{"jsonrpc":"2.0","id":7,"method":"x","params":{"p":${deep}}}\n`));
  const many = `[${Array(30).fill("{}").join(",")}]`;
  await up.writer.write(enc.encode(`{"jsonrpc":"2.0","id":8,"method":"x","params":{"p":${many}}}\n`));
  const values = `[${Array(40).fill("1").join(",")}]`;
  await up.writer.write(enc.encode(`{"jsonrpc":"2.0","id":10,"method":"x","params":{"p":${values}}}\n`));
  await up.writer.write(enc.encode(`{"jsonrpc":"2.0","id":11,"method":"x","params":{"${"k".repeat(51)}":1}}\n`));
  await up.writer.write(enc.encode('{"jsonrpc":"2.0","id":9,"method":"ping","params":{"p":[[],{}]}}\n'));
  const replies = await repliesAfterClose(server, up, down);
  assert.deepEqual(replies.map((r) => [r.id, r.error.code, r.error.message]), [
    [7, -32600, "Invalid request: nested deeper than 10 levels (maxDepth)"],
    [8, -32600, "Invalid request: more than 20 arrays and objects (maxContainers)"],
    [10, -32600, "Invalid request: more than 40 values (maxValues)"],
    [11, -32600, "Invalid request: an object key longer than 50 bytes (maxKeyBytes)"],
  ]);
  assert.deepEqual(seen, [{ jsonrpc: "2.0", id: 9, method: "ping", params: { p: [[], {}] } }]);
  for (const name of ["maxDepth", "maxContainers", "maxValues", "maxKeyBytes"] as const) {
    assert.throws(() => new StdioTransport({ [name]: 0 }), RangeError);
  }
});
