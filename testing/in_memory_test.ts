import assert from "node:assert/strict";
import { addTool, type Middleware, schema, Server, strProp, text } from "@forge/toolkit";
import { connectInMemory } from "./in_memory.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function echoServer(): Server {
  const server = new Server({ name: "echo" });
  addTool(server, {
    name: "echo",
    description: "Echoes",
    inputSchema: schema({ say: strProp("What to say") }, ["say"]),
    annotations: RO,
  }, (req) => text(req.arguments.say));
  return server;
}

Deno.test("connectInMemory() drives a server with the SDK client through the framer, recording each line it wrote", async () => {
  const session = await connectInMemory(echoServer());
  const result = await session.client.callTool({ name: "echo", arguments: { say: "line\nbreak" } });
  assert.deepEqual(result.content, [{ type: "text", text: "line\nbreak" }]);
  const replies = session.lines.map((line) => JSON.parse(line));
  assert.ok(session.lines.every((line) => !line.includes("\n")), "one JSON text per line");
  assert.equal(replies.at(-1).result.content[0].text, "line\nbreak");
  assert.ok(replies[0].result.serverInfo, "the initialize reply is recorded too");
  await session.close();
});

Deno.test("connectInMemory() passes the serve options and the client's name on to the server", async () => {
  const seen: string[] = [];
  const record: Middleware = (ctx, next) => {
    seen.push(`${ctx.client.name} ${ctx.client.version}`);
    return next();
  };
  const session = await connectInMemory(echoServer(), {
    serve: { middleware: [record] },
    clientInfo: { name: "probe-host", version: "9.1" },
  });
  await session.client.callTool({ name: "echo", arguments: { say: "x" } });
  assert.deepEqual(seen, ["probe-host 9.1"]);
  await session.close();
});

Deno.test("connectInMemory().close() ends the input, and the connection finishes", async () => {
  const session = await connectInMemory(echoServer());
  let finished = false;
  void session.connection.closed.then(() => (finished = true));
  await session.close();
  assert.equal(finished, true);
});
