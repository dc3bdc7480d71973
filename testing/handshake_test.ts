import assert from "node:assert/strict";
import { addTool, schema, Server, text } from "@forge/toolkit";
import { handshake } from "./handshake.ts";
import { serveRaw } from "./raw_session.ts";

Deno.test("handshake() initializes with the given capabilities, after which the server may ask the client", async () => {
  const server = new Server({ name: "h" });
  const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  addTool(
    server,
    { name: "roots", description: "Lists roots", inputSchema: schema(), annotations: RO },
    async (req) => text(`${(await req.listRoots()).length} roots`),
  );
  const session = serveRaw(server);
  const reply = await handshake(session, { capabilities: { roots: {} }, protocolVersion: "2025-11-25" });
  assert.equal(reply.id, 0);
  assert.equal((reply.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
  await session.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"roots"}}');
  const asked = await session.next();
  assert.equal(asked.method, "roots/list", "initialized was said: the server asks");
  await session.send(JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { roots: [] } }));
  assert.deepEqual((await session.next()).result, { content: [{ type: "text", text: "0 roots" }] });
  await session.close();
});
