import assert from "node:assert/strict";
import { addTool, type Middleware, registerPatternTool, schema, Server, strProp, text } from "@forge/toolkit";
import { connectInMemory } from "./in_memory.ts";
import { probe } from "./probe.ts";
import { spyHandler } from "./spy.ts";

const RW = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

function server(handler = spyHandler(() => text("written"))): Server {
  const s = new Server({ name: "probed" });
  registerPatternTool(
    s,
    { name: "write", description: "Writes", inputSchema: schema({ path: strProp("Path") }, ["path"]), annotations: RW },
    (args) => ({ patterns: [`write:${args.path}`], always: ["write:*"] }),
    handler,
  );
  registerPatternTool(
    s,
    { name: "plain_write", description: "Writes", inputSchema: schema(), annotations: RW },
    () => ({ patterns: ["write:one"] }),
    handler,
  );
  addTool(s, { name: "read", description: "Reads", inputSchema: schema(), annotations: RO }, () => text("r"));
  return s;
}

Deno.test("probe() reads a call's patterns and always-patterns without running the handler", async () => {
  const handler = spyHandler(() => text("written"));
  const session = await connectInMemory(server(handler));
  assert.deepEqual(await probe(session.client, "write", { path: "notes.md" }), {
    patterns: ["write:notes.md"],
    always: ["write:*"],
    isError: false,
  });
  assert.deepEqual(await probe(session.client, "plain_write"), {
    patterns: ["write:one"],
    always: undefined,
    isError: false,
  });
  assert.equal(handler.calls.length, 0);
  await session.close();
});

Deno.test("probe() reports a refused probe (arguments that break the schema) as isError with no patterns", async () => {
  const session = await connectInMemory(server());
  assert.deepEqual(await probe(session.client, "write", { path: 42 }), {
    patterns: [],
    always: undefined,
    isError: true,
  });
  await session.close();
});

Deno.test("probe() of a tool without patterns reads an empty list", async () => {
  const session = await connectInMemory(server());
  assert.deepEqual((await probe(session.client, "read")).patterns, []);
  await session.close();
});

Deno.test("probe() throws when the result carries no patterns: the server ignored the probe", async () => {
  // A middleware that answers every call itself, probes included, as a server unaware of probes would.
  const ignore: Middleware = () => text("ran anyway");
  const session = await connectInMemory(server(), { serve: { middleware: [ignore] } });
  await assert.rejects(
    probe(session.client, "write", { path: "x" }),
    { message: 'Cannot read the patterns of tool "write": the result has none' },
  );
  await session.close();
});
