// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
import assert from "node:assert/strict";
import { addTool, schema, Server, text } from "@forge/toolkit";
import { createWorld } from "./_world.ts";
import { inMemoryTarget } from "./in_memory_target.ts";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

Deno.test("an in-memory server speaks through the framer, its console is its stderr until it closes", async () => {
  const world = await createWorld();
  const target = inMemoryTarget(() => {
    const server = new Server({ name: "t" });
    addTool(server, { name: "shout", description: "Logs", inputSchema: schema(), annotations: READ }, () => {
      console.error("from the handler");
      return text("done");
    });
    return server;
  }, { scope: { read: ["/srv"] } });
  assert.equal(target.inProcess, true);
  const before = console.error;
  const connection = await target.start(world);
  assert.deepEqual(connection.scope, { read: ["/srv"], write: [] });
  const call = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"shout","arguments":{},' +
    '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}\n';
  await connection.send(new TextEncoder().encode(call));
  while (connection.lines.length === 0) await connection.wait(1_000);
  assert.match(connection.lines[0], /"id":1,"result":\{.*"text":"done"/);
  assert.deepEqual(connection.stderr, ["from the handler"]);
  assert.deepEqual(await connection.close(1_000), { code: 0, killed: false });
  assert.equal(console.error, before, "console is restored");
  assert.deepEqual(connection.ended, { code: 0 });
  await world.dispose();
});
