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
  up.close();
  await new Promise((r) => setTimeout(r, 20));
  down.close();
  const buf = new Uint8Array(65536);
  let text = "";
  for (let n = await down.reader.read(buf); n !== null; n = await down.reader.read(buf)) {
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  const replies = text.trim().split("\n").map((l) => JSON.parse(l));
  assert.equal(replies[0].error.code, -32700);
  assert.equal(replies[1].id, 5);
  assert.match(replies[1].error.message, /exceeds the limit of 4096 bytes/);
  assert.deepEqual(seen, [{ jsonrpc: "2.0", id: 6, method: "ping" }]);
});

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
