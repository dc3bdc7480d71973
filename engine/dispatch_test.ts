import assert from "node:assert/strict";
import { serveRaw } from "@forge/toolkit/testing";
import { addTool, json, type ObjectSchema, registerPatternTool, schema, Server, strProp, text } from "@forge/toolkit";

import { Dispatcher } from "./dispatch.ts";
import type { Outgoing } from "./_batch.ts";
import { classify, messageOf, parseFrame } from "./jsonrpc.ts";
import { registryOf } from "../toolkit/registry.ts";
import type { Middleware } from "../toolkit/middleware.ts";

const TASKS = "io.modelcontextprotocol/tasks";
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const STATELESS_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

function makeServer(): Server {
  const server = new Server({ name: "t", version: "1.2.3", instructions: "be nice" });
  addTool(
    server,
    { name: "echo", description: "Echo", inputSchema: schema({ text: strProp("t") }), annotations: RO },
    (r) => text(String(r.arguments.text)),
  );
  addTool(server, {
    name: "slow",
    description: "Waits for its signal",
    inputSchema: schema(),
    annotations: RO,
    timeoutMs: 60_000,
  }, (r) => new Promise((_, reject) => r.signal.addEventListener("abort", () => reject(r.signal.reason))));
  return server;
}

const init = (version = "2025-11-25") =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
  });
const req = (id: unknown, method: string, params?: unknown) => JSON.stringify({ jsonrpc: "2.0", id, method, params });

Deno.test("initialize echoes a supported session version and answers an unknown one with the newest", async () => {
  for (
    const [asked, got] of [["2025-03-26", "2025-03-26"], ["2024-11-05", "2024-11-05"], ["1999-01-01", "2025-11-25"]]
  ) {
    const s = serveRaw(makeServer());
    await s.send(init(asked));
    const reply = await s.next();
    const result = reply.result as Record<string, unknown>;
    assert.equal(result.protocolVersion, got);
    assert.deepEqual(result.serverInfo, { name: "t", version: "1.2.3" });
    assert.deepEqual(result.capabilities, { tools: { listChanged: true } });
    assert.equal(result.instructions, "be nice");
    await s.close();
  }
});

Deno.test("a session request before initialize is refused with a message that says what to send", async () => {
  const s = serveRaw(makeServer());
  await s.send(req(1, "tools/list"));
  const reply = await s.next();
  const error = reply.error as { code: number; message: string };
  assert.equal(error.code, -32602);
  assert.match(error.message, /Not initialized: send "initialize" first/);
  await s.send(req(2, "ping"));
  assert.deepEqual((await s.next()).result, {});
  await s.close();
});

Deno.test("server/discover answers in the 2026-07-28 shape, and initialize still works after it", async () => {
  const s = serveRaw(makeServer());
  await s.send(req("probe-1", "server/discover", { _meta: STATELESS_META }));
  const discover = (await s.next()).result as Record<string, unknown>;
  assert.deepEqual(discover.supportedVersions, ["2026-07-28"]);
  assert.equal(discover.resultType, "complete");
  assert.equal(discover.cacheScope, "private");
  assert.equal(discover.ttlMs, 0);
  assert.equal(discover.instructions, "be nice");
  assert.deepEqual((discover._meta as Record<string, unknown>)["io.modelcontextprotocol/serverInfo"], {
    name: "t",
    version: "1.2.3",
  });
  await s.send(init());
  assert.equal(((await s.next()).result as Record<string, unknown>).protocolVersion, "2025-11-25");
  await s.close();
});

Deno.test("a 2026-07-28 request needs no initialize and gets resultType, ttlMs and cacheScope", async () => {
  const s = serveRaw(makeServer());
  await s.send(req(1, "tools/list", { _meta: STATELESS_META }));
  const list = (await s.next()).result as Record<string, unknown>;
  assert.equal(list.resultType, "complete");
  assert.equal(list.ttlMs, 0);
  assert.equal(list.cacheScope, "private");
  assert.deepEqual((list.tools as { name: string }[]).map((t) => t.name), ["echo", "slow"]);
  await s.send(req(2, "tools/call", { name: "echo", arguments: { text: "hi" }, _meta: STATELESS_META }));
  const call = (await s.next()).result as Record<string, unknown>;
  assert.equal(call.resultType, "complete");
  assert.deepEqual(call.content, [{ type: "text", text: "hi" }]);
  await s.close();
});

Deno.test("an unsupported protocol version gets -32022 with the supported list", async () => {
  const s = serveRaw(makeServer());
  const meta = { ...STATELESS_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" };
  await s.send(req(1, "tools/list", { _meta: meta }));
  const error = (await s.next()).error as { code: number; data: Record<string, unknown> };
  assert.equal(error.code, -32022);
  assert.deepEqual(error.data, { supported: ["2026-07-28"], requested: "2099-01-01" });
  await s.close();
});

Deno.test("a 2026-07-28 request without clientCapabilities is malformed (-32602)", async () => {
  const s = serveRaw(makeServer());
  await s.send(req(1, "tools/list", { _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } }));
  const error = (await s.next()).error as { code: number; data: unknown };
  assert.equal(error.code, -32602);
  assert.deepEqual(error.data, { envelope: { key: "io.modelcontextprotocol/clientCapabilities", problem: "missing" } });
  await s.close();
});

Deno.test("a 2026-07-28 request whose clientInfo is not an implementation is malformed (-32602)", async () => {
  const s = serveRaw(makeServer());
  const meta = { ...STATELESS_META, "io.modelcontextprotocol/clientInfo": { name: 5 } };
  await s.send(req(1, "tools/list", { _meta: meta }));
  const error = (await s.next()).error as { code: number; data: unknown };
  assert.equal(error.code, -32602);
  assert.deepEqual(error.data, {
    envelope: { key: "io.modelcontextprotocol/clientInfo", problem: "name must be a string" },
  });
  await s.close();
});

Deno.test("ping is answered in the session era and is not a 2026-07-28 method", async () => {
  const s = serveRaw(makeServer());
  await s.send(req(1, "ping"));
  assert.deepEqual((await s.next()).result, {});
  await s.send(req(2, "ping", { _meta: STATELESS_META }));
  assert.equal(((await s.next()).error as { code: number }).code, -32601);
  await s.close();
});

Deno.test("a notification sent with an id is -32600 (it must not carry one), not an unknown method", async () => {
  const s = serveRaw(makeServer());
  await s.send(init());
  await s.next();
  for (const method of ["notifications/cancelled", "notifications/initialized", "notifications/nope"]) {
    await s.send(req(method, method, { requestId: 1 }));
    const reply = await s.next();
    assert.equal(reply.id, method);
    assert.deepEqual(reply.error, {
      code: -32600,
      message: `Invalid request: "${method}" is a notification: it must not carry an id`,
    });
  }
  await s.close();
});

Deno.test("a response without an id (no id, or id null) is never answered, alone or in a batch", async () => {
  // JSON-RPC 2.0 gives an error response `"id": null` when the request's id could not be read; MCP's schema lets an
  // error response leave its id out. Each was answered with -32600: a reply to a response.
  const strays = [
    '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}',
    '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request"}}',
    '{"jsonrpc":"2.0","id":null,"result":{}}',
  ];
  const s = serveRaw(makeServer());
  await s.send(init("2025-03-26"));
  await s.next();
  for (const stray of strays) await s.send(stray);
  await s.send(`[${strays.join(",")},${req(2, "ping")}]`);
  await s.send(req(1, "ping"));
  // The batch's array is sent once its items settle, after the ping read with it: replies go by id, not order.
  const replies = [await s.next(), await s.next()].map((r) => JSON.stringify(r)).sort();
  assert.deepEqual(replies, ['[{"jsonrpc":"2.0","id":2,"result":{}}]', '{"jsonrpc":"2.0","id":1,"result":{}}']);
  await s.close();
  assert.equal(s.lines.length, 3);
  assert.deepEqual(s.log.filter((l) => l.startsWith("a response without an id was dropped")), [
    'a response without an id was dropped (error -32700 "Parse error"): it names no request',
    'a response without an id was dropped (error -32600 "Invalid request"): it names no request',
    "a response without an id was dropped (a result): it names no request",
    'a response without an id was dropped (error -32700 "Parse error"): it names no request',
    'a response without an id was dropped (error -32600 "Invalid request"): it names no request',
    "a response without an id was dropped (a result): it names no request",
  ]);
  // Still invalid requests: a null id with a method, and a message with neither method nor result nor error.
  const t = serveRaw(makeServer());
  await t.send('{"jsonrpc":"2.0","id":null,"method":"ping"}');
  await t.send('{"jsonrpc":"2.0","id":null}');
  for (const message of ['"id" must be a string or a number', '"id" must be a string or a number']) {
    assert.deepEqual(await t.next(), {
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid request: ${message}` },
    });
  }
  await t.close();
});

Deno.test("unknown methods get -32601 and the server keeps serving", async () => {
  const s = serveRaw(makeServer());
  await s.send(init());
  await s.next();
  for (const method of ["resources/list", "prompts/list", "logging/setLevel", "nope"]) {
    await s.send(req(method, method));
    const reply = await s.next();
    assert.equal(reply.id, method);
    assert.equal((reply.error as { code: number }).code, -32601);
  }
  await s.send(req(9, "tools/call", { name: "echo", arguments: { text: "still here" } }));
  assert.deepEqual(((await s.next()).result as Record<string, unknown>).content, [{
    type: "text",
    text: "still here",
  }]);
  await s.close();
});

Deno.test("tools/call: unknown tool, bad name and bad arguments are JSON-RPC -32602", async () => {
  const s = serveRaw(makeServer());
  await s.send(init());
  await s.next();
  for (
    const params of [{ name: "missing" }, { name: 5 }, { name: "echo", arguments: [1] }, {
      name: "echo",
      arguments: "x",
    }]
  ) {
    await s.send(req(1, "tools/call", params));
    assert.equal(((await s.next()).error as { code: number }).code, -32602, JSON.stringify(params));
  }
  await s.send(req(2, "tools/list", { cursor: "abc" }));
  assert.equal(((await s.next()).error as { code: number }).code, -32602);
  await s.close();
});

Deno.test('string and number ids are answered as sent, and 1 and "1" are different calls', async () => {
  const s = serveRaw(makeServer());
  await s.send(init());
  await s.next();
  await s.send(req(1, "tools/call", { name: "echo", arguments: { text: "n" } }));
  await s.send(req("1", "tools/call", { name: "echo", arguments: { text: "s" } }));
  const replies = [await s.next(), await s.next()];
  const byId = new Map(
    replies.map((r) => [JSON.stringify(r.id), (r.result as { content: { text: string }[] }).content[0].text]),
  );
  assert.equal(byId.get("1"), "n");
  assert.equal(byId.get('"1"'), "s");
  await s.close();
});

Deno.test("a duplicate id of a call in flight is refused; notifications get no reply", async () => {
  const s = serveRaw(makeServer());
  await s.send(init());
  await s.next();
  await s.send(req(5, "tools/call", { name: "slow" }));
  await s.send(req(5, "tools/call", { name: "slow" }));
  const dup = await s.next();
  assert.equal(dup.id, 5);
  assert.equal(
    (dup.error as { message: string }).message,
    "Invalid request: id 5 is already used by a request in flight",
  );
  await s.send(req("5", "tools/call", { name: "slow" }));
  await s.send(req("5", "tools/call", { name: "slow" }));
  assert.equal(
    ((await s.next()).error as { message: string }).message,
    'Invalid request: id "5" is already used by a request in flight',
  );
  await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  await s.send(
    JSON.stringify({ jsonrpc: "2.0", method: "tools/call", params: { name: "echo", arguments: { text: "x" } } }),
  );
  // A cancelled call sends no reply: its id may be used again in the same write.
  const cancel = (requestId: unknown) =>
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } });
  await s.send(`${cancel(5)}\n${cancel("5")}\n${req(5, "tools/call", { name: "echo", arguments: { text: "again" } })}`);
  const again = await s.next();
  assert.deepEqual([again.id, again.error], [5, undefined], "no reply to notifications, none to the cancelled call");
  await s.close();
  assert.equal(s.lines.length, 4);
});

Deno.test("batches are refused unless 2025-03-26 was negotiated, where each request is answered in one array", async () => {
  const s = serveRaw(makeServer());
  await s.send(init("2025-11-25"));
  await s.next();
  await s.send(`[${req(1, "ping")},${req(2, "ping")}]`);
  const refused = await s.next();
  assert.equal(refused.id, null);
  assert.match((refused.error as { message: string }).message, /batches are not part of protocol version 2025-11-25/);
  await s.close();

  const b = serveRaw(makeServer());
  await b.send(init("2025-03-26"));
  await b.next();
  await b.send(`[${req(1, "ping")},{"jsonrpc":"2.0","method":"notifications/initialized"},${
    req(2, "tools/call", {
      name: "echo",
      arguments: { text: "b" },
    })
  },5]`);
  await b.close();
  const batch = JSON.parse(b.lines[1]) as Record<string, unknown>[];
  assert.equal(batch.length, 3);
  assert.deepEqual(batch[0], { jsonrpc: "2.0", id: 1, result: {} });
  assert.equal(batch[1].id, 2);
  assert.equal((batch[2].error as { code: number }).code, -32600);
});

Deno.test("a batch refuses its 2026-07-28 items with -32600 and answers them in its array, the others as usual", async () => {
  const s = serveRaw(makeServer());
  await s.send(init("2025-03-26"));
  await s.next();
  await s.send(
    `[${req(1, "ping")},${req(2, "tools/list", { _meta: STATELESS_META })},${
      req(3, "subscriptions/listen", { _meta: STATELESS_META, notifications: { toolsListChanged: true } })
    },${req(4, "tools/call", { name: "echo", arguments: { text: "b" }, _meta: STATELESS_META })}]`,
  );
  await s.close();
  // A listen in a batch was opened, acknowledged outside the array and answered alone at shutdown.
  assert.equal(s.lines.length, 2, s.lines.join("\n"));
  const batch = JSON.parse(s.lines[1]) as { id: number; result?: unknown; error?: { code: number; message: string } }[];
  assert.deepEqual(batch[0], { jsonrpc: "2.0", id: 1, result: {} });
  assert.deepEqual(batch.slice(1).map((item) => [item.id, item.error?.code]), [[2, -32600], [3, -32600], [4, -32600]]);
  assert.equal(
    batch[1].error?.message,
    "Invalid request: a 2026-07-28 request cannot be sent in a batch (batches are part of 2025-03-26 only); " +
      "send it on its own line",
  );
});

Deno.test("tools/list serialises the list once per change: a batch of 50 reads each definition once", async () => {
  const server = makeServer();
  // Each serialisation of the list reads this definition's description.
  let reads = 0;
  const wire = registryOf(server).tools.get("echo")!.wire;
  const description = wire.description;
  Object.defineProperty(wire, "description", { enumerable: true, get: () => (reads++, description) });
  const s = serveRaw(server);
  await s.send(init("2025-03-26"));
  await s.next();
  await s.send(JSON.stringify(Array.from({ length: 50 }, (_, id) => ({ jsonrpc: "2.0", id, method: "tools/list" }))));
  const batch = await s.next() as unknown as { id: number; result: { tools: { name: string }[] } }[];
  assert.equal(batch.length, 50);
  assert.deepEqual(batch[49].result.tools.map((t) => t.name), ["echo", "slow"]);
  assert.equal(reads, 1);
  addTool(server, { name: "late", description: "Late", inputSchema: schema(), annotations: RO }, () => text("late"));
  await s.next();
  await s.send(req("after", "tools/list"));
  const after = await s.next();
  assert.deepEqual((after.result as { tools: { name: string }[] }).tools.map((t) => t.name), ["echo", "slow", "late"]);
  assert.equal(reads, 2);
  await s.close();
});

Deno.test("a message over maxMessageBytes gets an error naming the limit, with its id, and the server goes on", async () => {
  const s = serveRaw(makeServer(), { maxMessageBytes: 1024 });
  await s.send(init());
  await s.next();
  await s.send(req(77, "tools/call", { name: "echo", arguments: { text: "x".repeat(5000) } }));
  const reply = await s.next();
  assert.equal(reply.id, 77);
  const error = reply.error as { code: number; message: string; data: { limit: number } };
  assert.equal(error.code, -32600);
  assert.match(error.message, /exceeds the limit of 1024 bytes \(maxMessageBytes\)/);
  assert.equal(error.data.limit, 1024);
  await s.send(req(78, "ping"));
  assert.deepEqual((await s.next()).result, {});
  await s.close();
});

Deno.test("a tool added after start sends notifications/tools/list_changed", async () => {
  const server = makeServer();
  const s = serveRaw(server);
  await s.send(init());
  await s.next();
  addTool(server, { name: "late", description: "Late", inputSchema: schema(), annotations: RO }, () => text("late"));
  assert.deepEqual(await s.next(), { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  await s.send(req(1, "tools/list"));
  assert.equal(((await s.next()).result as { tools: unknown[] }).tools.length, 3);
  await s.close();
});

Deno.test("a server served twice notifies only the stream that is still open", async () => {
  const server = makeServer();
  const first = serveRaw(server);
  await first.send(init());
  await first.next();
  await first.close();
  const seenByFirst = first.lines.length;
  const second = serveRaw(server);
  await second.send(init());
  await second.next();
  addTool(server, { name: "late", description: "Late", inputSchema: schema(), annotations: RO }, () => text("late"));
  assert.deepEqual(await second.next(), { jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  // A fixed wait, only to prove that something does not happen: no line reaches the closed stream.
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(first.lines.length, seenByFirst, "the closed stream's dispatcher still hears the registry");
  await second.close();
});

Deno.test("subscriptions/listen (2026-07-28) acknowledges, delivers list_changed, and ends at shutdown", async () => {
  const server = makeServer();
  const s = serveRaw(server);
  await s.send(
    req("listen:0", "subscriptions/listen", { _meta: STATELESS_META, notifications: { toolsListChanged: true } }),
  );
  const ack = await s.next();
  assert.equal(ack.method, "notifications/subscriptions/acknowledged");
  assert.deepEqual(ack.params, {
    notifications: { toolsListChanged: true },
    _meta: { "io.modelcontextprotocol/subscriptionId": "listen:0" },
  });
  addTool(server, { name: "late", description: "Late", inputSchema: schema(), annotations: RO }, () => text("late"));
  const changed = await s.next();
  assert.equal(changed.method, "notifications/tools/list_changed");
  assert.deepEqual(changed.params, { _meta: { "io.modelcontextprotocol/subscriptionId": "listen:0" } });
  await s.close();
  const end = JSON.parse(s.lines.at(-1)!);
  assert.equal(end.id, "listen:0");
  assert.equal(end.result.resultType, "complete");
});

Deno.test("progress notifications reach the client only for calls that asked, and only increasing", async () => {
  const server = new Server({ name: "p" });
  addTool(server, { name: "work", description: "Reports progress", inputSchema: schema(), annotations: RO }, (r) => {
    r.progress(1, 3, "one");
    r.progress(1, 3, "again");
    r.progress(2, 3);
    r.progress(Number.NaN);
    return text("done");
  });
  const s = serveRaw(server);
  await s.send(init());
  await s.next();
  await s.send(req(1, "tools/call", { name: "work", _meta: { progressToken: "tok" } }));
  assert.deepEqual(await s.next(), {
    jsonrpc: "2.0",
    method: "notifications/progress",
    params: { progressToken: "tok", progress: 1, total: 3, message: "one" },
  });
  assert.deepEqual((await s.next()).params, { progressToken: "tok", progress: 2, total: 3 });
  assert.equal((await s.next()).id, 1);
  await s.send(req(2, "tools/call", { name: "work" }));
  assert.equal((await s.next()).id, 2, "no progress without a token");
  await s.close();
});

Deno.test("outputSchema judges the structuredContent the client reads: its JSON, which is also what is sent", async () => {
  const server = new Server({ name: "o" });
  const needsB: ObjectSchema = schema({ a: { type: "string" }, b: { type: "integer" } }, ["b"]);
  addTool(
    server,
    { name: "hidden", description: "d", inputSchema: schema(), outputSchema: needsB, annotations: RO },
    () => {
      // b is an own key the check would see and JSON never sends; a is undefined, dropped too.
      const value: Record<string, unknown> = { a: undefined };
      Object.defineProperty(value, "b", { value: 1, enumerable: false });
      return { content: [{ type: "text", text: "{}" }], structuredContent: value };
    },
  );
  const dated: ObjectSchema = schema({ when: { type: "string" } }, ["when"]);
  addTool(
    server,
    { name: "dated", description: "d", inputSchema: schema(), outputSchema: dated, annotations: RO },
    () => json({ when: new Date(0) }),
  );
  addTool(
    server,
    { name: "big", description: "d", inputSchema: schema(), outputSchema: dated, annotations: RO },
    () => ({ content: [{ type: "text", text: "x" }], structuredContent: { when: 1n } as Record<string, unknown> }),
  );
  // The check reads an array's items only, as JSON does: a named key on one is neither judged nor sent.
  const pair: ObjectSchema = schema({ list: { type: "array", const: [1, 2] } }, ["list"]);
  addTool(
    server,
    { name: "noted", description: "d", inputSchema: schema(), outputSchema: pair, annotations: RO },
    () => ({
      content: [{ type: "text", text: "x" }],
      structuredContent: { list: Object.assign([1, 2], { note: "not sent", big: 1n }) },
    }),
  );
  const s = serveRaw(server);
  await s.send(init());
  await s.next();
  await s.send(req(9, "tools/call", { name: "noted" }));
  assert.deepEqual(((await s.next()).result as Record<string, unknown>).structuredContent, { list: [1, 2] });
  await s.send(req(1, "tools/call", { name: "hidden" }));
  assert.equal(((await s.next()).error as { code: number }).code, -32603, "{} breaks the schema: b is missing");
  assert.match(s.log.join("\n"), /outputSchema check failed: "\/b": is missing/);
  await s.send(req(2, "tools/call", { name: "dated" }));
  const dateResult = (await s.next()).result as Record<string, unknown>;
  assert.deepEqual(dateResult.structuredContent, { when: "1970-01-01T00:00:00.000Z" }, "a Date is sent as its string");
  await s.send(req(3, "tools/call", { name: "big" }));
  assert.equal(((await s.next()).error as { code: number }).code, -32603);
  assert.match(s.log.join("\n"), /Cannot send the result of tool "big": its structuredContent has no JSON/);
  await s.close();
});

Deno.test("structuredContent is validated against outputSchema before it is sent", async () => {
  const out: ObjectSchema = schema({ n: { type: "integer" } }, ["n"]);
  const server = new Server({ name: "o" });
  addTool(
    server,
    { name: "good", description: "d", inputSchema: schema(), outputSchema: out, annotations: RO },
    () => json({ n: 1 }),
  );
  addTool(
    server,
    { name: "bad", description: "d", inputSchema: schema(), outputSchema: out, annotations: RO },
    () => json({ n: "one" }),
  );
  addTool(
    server,
    { name: "fails", description: "d", inputSchema: schema(), outputSchema: out, annotations: RO },
    () => ({
      content: [{ type: "text", text: "no" }],
      structuredContent: { n: "x" },
      isError: true,
    }),
  );
  const s = serveRaw(server);
  await s.send(init());
  await s.next();
  await s.send(req(1, "tools/call", { name: "good" }));
  assert.deepEqual(((await s.next()).result as Record<string, unknown>).structuredContent, { n: 1 });
  await s.send(req(2, "tools/call", { name: "bad" }));
  const bad = await s.next();
  assert.equal((bad.error as { code: number }).code, -32603);
  assert.match(s.log.join("\n"), /outputSchema check failed: "\/n": must be an integer \(type\), got the string "one"/);
  await s.send(req(3, "tools/call", { name: "fails" }));
  const failed = (await s.next()).result as Record<string, unknown>;
  assert.equal(failed.isError, true);
  assert.equal(failed.structuredContent, undefined, "omitted on isError results");
  await s.close();
});

Deno.test("a probe of a pattern tool answers its patterns in _meta and never runs the handler", async () => {
  const server = new Server({ name: "w" });
  let ran = 0;
  registerPatternTool(
    server,
    {
      name: "write",
      description: "Writes",
      inputSchema: schema({ path: strProp("p") }, ["path"]),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) => ({ patterns: [`write:${args.path}`], always: ["write:*"] }),
    () => {
      ran++;
      return text("written");
    },
  );
  const s = serveRaw(server);
  await s.send(
    req(1, "tools/call", {
      name: "write",
      arguments: { path: "a.txt" },
      _meta: { ...STATELESS_META, "forge.permission_patterns": true },
    }),
  );
  const result = (await s.next()).result as Record<string, unknown>;
  assert.deepEqual((result._meta as Record<string, unknown>)["forge.permission_patterns"], ["write:a.txt"]);
  assert.deepEqual((result._meta as Record<string, unknown>)["forge.always_patterns"], ["write:*"]);
  assert.equal(ran, 0);
  // A flag that is neither true nor false is refused, never taken for an ordinary call: a host that sends "true"
  // expects a dry run. false is an ordinary call.
  for (const [i, flag] of (["true", 1, [true], {}, null] as unknown[]).entries()) {
    await s.send(req(10 + i, "tools/call", {
      name: "write",
      arguments: { path: "b.txt" },
      _meta: { ...STATELESS_META, "forge.permission_patterns": flag },
    }));
    const error = (await s.next()).error as { code: number; message: string };
    assert.equal(error.code, -32602, JSON.stringify(error));
    assert.match(error.message, /_meta\["forge\.permission_patterns"\] must be true \(a probe\) or false, not /);
  }
  assert.equal(ran, 0, "a call with an unreadable probe flag ran");
  await s.send(req(20, "tools/call", {
    name: "write",
    arguments: { path: "c.txt" },
    _meta: { ...STATELESS_META, "forge.permission_patterns": false },
  }));
  assert.equal(((await s.next()).result as Record<string, unknown>).isError, undefined);
  assert.equal(ran, 1);
  await s.close();
});

Deno.test("a drain that starts while the tasks code is still loading cancels the tasks asked for before it", async () => {
  const server = new Server({ name: "t" });
  let aborted = 0;
  addTool(
    server,
    {
      name: "long",
      description: "Runs until its signal fires",
      inputSchema: schema(),
      annotations: RO,
      task: true,
    },
    (r) => new Promise((_, reject) => r.signal.addEventListener("abort", () => (aborted++, reject(r.signal.reason)))),
  );
  const { dispatcher, sent } = dispatcherOver(server);
  const meta = { ...STATELESS_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };
  for (const id of ["a", "b"]) {
    dispatcher.receive(classify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "long", _meta: meta } }));
  }
  // In the same turn: no import() has settled yet.
  await dispatcher.drain(1_000);
  assert.equal(aborted, 2, "both handlers ran and were cancelled by the drain");
  const replies = sent.map((line) => JSON.parse(line));
  assert.deepEqual(replies.map((r) => [r.id, r.result.resultType]).sort(), [["a", "task"], ["b", "task"]]);
});

/** A dispatcher over `server` whose frames are kept, as serve() would write them. */
function dispatcherOver(server: Server): { dispatcher: Dispatcher; sent: string[]; frames: Outgoing[] } {
  const sent: string[] = [];
  const frames: Outgoing[] = [];
  const outbox = {
    send: (frame: Outgoing) => (frames.push(frame), sent.push(String(frame))),
    congested: false,
    idle: () => Promise.resolve(),
  };
  const dispatcher = new Dispatcher(server, outbox, {
    timeoutMs: 60_000,
    maxInFlight: 10,
    maxMessageBytes: 1 << 20,
    listTtlMs: 0,
    tasks: { max: 10, maxBytes: 1 << 20, maxMessageBytes: 1 << 20, pollIntervalMs: 1_000, ttlMs: 60_000 },
    middleware: [],
    log: () => {},
  });
  return { dispatcher, sent, frames };
}

/** The tools the quick call's test calls: each case the quick path takes or leaves. */
function quickCallServer(): Server {
  const server = makeServer();
  addTool(
    server,
    { name: "later", description: "Answers later", inputSchema: schema(), annotations: RO },
    () => Promise.resolve(text("later")),
  );
  addTool(
    server,
    { name: "signal", description: "Reads its signal", inputSchema: schema(), annotations: RO },
    (r) => text(`aborted: ${r.signal.aborted}`),
  );
  addTool(
    server,
    { name: "who", description: "Names its client", inputSchema: schema(), annotations: RO },
    (r) => text(`${r.client.name} ${r.client.version} ${r.client.protocolVersion}`),
  );
  addTool(
    server,
    { name: "big", description: "Reserves its reply", inputSchema: schema(), annotations: RO, maxResultBytes: 1000 },
    () => text("big"),
  );
  addTool(
    server,
    { name: "job", description: "A task", inputSchema: schema(), annotations: RO, task: true },
    () => text("job"),
  );
  addTool(
    server,
    { name: "fails", description: "Throws", inputSchema: schema(), annotations: RO },
    () => {
      throw new TypeError("boom");
    },
  );
  return server;
}

Deno.test("a plain tools/call takes the quick path, and every message gets the same answer on either path", async () => {
  const taskMeta = { ...STATELESS_META, "io.modelcontextprotocol/clientCapabilities": { extensions: { [TASKS]: {} } } };
  const call = (id: unknown, params: Record<string, unknown>) => req(id, "tools/call", params);
  // Each message, and whether the quick path takes it.
  const cases: [string, boolean][] = [
    [call(1, { name: "echo", arguments: { text: "before initialize" } }), false],
    [init(), false],
    ['{"jsonrpc":"2.0","method":"notifications/initialized"}', false],
    [call(2, { name: "echo", arguments: { text: "hi" } }), true],
    [call("two", { name: "echo", arguments: { text: "string id" } }), true],
    [call(2.5, { name: "echo" }), true],
    ['{"jsonrpc":"2.0","id":1e400,"method":"tools/call","params":{"name":"echo"}}', false],
    ['{"jsonrpc":"2.0","id":-0,"method":"tools/call","params":{"name":"echo"}}', false],
    [call(3, { name: "echo", arguments: { text: 5 } }), true],
    [call(4, { name: "later" }), true],
    [call(5, { name: "signal" }), true],
    [call(6, { name: "who" }), true],
    [call(7, { name: "fails" }), true],
    [call(8, { name: "echo", _meta: { "forge.permission_patterns": true } }), false],
    [call(9, { name: "echo", _meta: { "forge.permission_patterns": "yes" } }), false],
    [call(10, { name: "echo", _meta: { progressToken: "p" } }), false],
    [call(11, { name: "nope" }), false],
    [call(12, { arguments: {} }), false],
    [call(13, { name: "echo", arguments: ["a"] }), false],
    [call(14, { name: "big" }), false],
    [call(15, { name: "job" }), false],
    [call(16, { name: "job", _meta: taskMeta }), false],
    [call(17, { name: "echo", arguments: { text: "modern" }, _meta: STATELESS_META }), true],
    [call(18, { name: "who", _meta: STATELESS_META }), true],
    [call(19, { name: "echo", _meta: STATELESS_META, inputResponses: {} }), false],
    [call(20, { name: "echo", _meta: STATELESS_META, requestState: "x" }), false],
    [
      call(21, { name: "echo", _meta: { ...STATELESS_META, "io.modelcontextprotocol/protocolVersion": "2099" } }),
      false,
    ],
    [call(22, { name: "slow" }), true],
    [call(22, { name: "echo" }), false],
    ['{"jsonrpc":"1.0","id":23,"method":"tools/call","params":{"name":"echo"}}', false],
    ['{"jsonrpc":"2.0","id":24,"method":"tools/call","params":[]}', false],
    ['{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}', false],
    ['{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}', false],
    [req(25, "ping"), false],
  ];
  const quick = dispatcherOver(quickCallServer());
  const general = dispatcherOver(quickCallServer());
  const taken: boolean[] = [];
  for (const [line, _] of cases) {
    const bytes = new TextEncoder().encode(line);
    const parsed = parseFrame(bytes);
    const took = parsed.kind === "parsed" && quick.dispatcher.receiveCall(parsed.value, bytes.length);
    if (!took) quick.dispatcher.receive(messageOf(parseFrame(bytes)), bytes.length);
    general.dispatcher.receive(messageOf(parseFrame(bytes)), bytes.length);
    taken.push(took);
  }
  assert.deepEqual(taken, cases.map(([, takes]) => takes), "the calls the quick path takes, and those it leaves");
  await Promise.all([quick.dispatcher.drain(0), general.dispatcher.drain(0)]);
  // Tasks answer with their ids and times, and failures with a reference, which differ between the two: compared
  // without them.
  const comparable = (line: string) =>
    line.replace(/"taskId":"[^"]*"|"(createdAt|lastUpdatedAt)":"[^"]*"|\(ref [^)]*\)/g, "");
  assert.deepEqual(quick.sent.map(comparable).sort(), general.sent.map(comparable).sort());
  assert.equal(
    quick.sent.length,
    32,
    "every request answered once (the two notifications not), the slow call at the drain",
  );
  const byId = new Map(quick.sent.map((line) => [JSON.parse(line).id, JSON.parse(line)]));
  assert.equal(byId.get(5).result.content[0].text, "aborted: false");
  assert.equal(byId.get(6).result.content[0].text, "raw 1 2025-11-25");
  assert.equal(byId.get(18).result.content[0].text, "raw 1 2026-07-28");
  assert.equal(byId.get(4).result.content[0].text, "later");
  assert.equal(byId.get(7).error.code, -32603);
});

// What a handler and its middleware see of the client (found in the review of the quick call, where a client made on
// first read changed all four): one object per call, made as the session stood when the call was dispatched.
const initAs = (id: number, name: string, version: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name, version: "1" } },
  });
const textOf = (reply: Record<string, unknown>) => (reply.result as { content: { text: string }[] }).content[0].text;

Deno.test("a call's client is the one it was served under, even if the client initializes again while it waits", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = new Server({ name: "t", version: "1" });
  addTool(
    server,
    { name: "whoLater", description: "Names its client after a wait", inputSchema: schema(), annotations: RO },
    async (r) => {
      await gate;
      return text(`${r.client.name} ${r.client.protocolVersion}`);
    },
  );
  const s = serveRaw(server);
  await s.send(initAs(0, "first", "2025-06-18"));
  await s.next();
  await s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  await s.send(req(1, "tools/call", { name: "whoLater" }));
  // A second initialize (nothing refuses it) while call 1 waits.
  await s.send(initAs(2, "second", "2025-11-25"));
  assert.equal((await s.next()).id, 2);
  release();
  const reply = await s.next();
  assert.equal(reply.id, 1);
  assert.equal(textOf(reply), "first 2025-06-18");
  await s.close();
});

Deno.test("a middleware's ctx.client is the handler's req.client: what the middleware sets there, the handler sees", async () => {
  let seen: unknown;
  const mark: Middleware = (ctx, next) => {
    seen = ctx.client;
    ctx.client.name = `${ctx.client.name} (audited)`;
    return next();
  };
  const server = new Server({ name: "t", version: "1" });
  addTool(
    server,
    { name: "who", description: "Names its client", inputSchema: schema(), annotations: RO },
    (r) => json({ name: r.client.name, same: r.client === seen }),
  );
  const s = serveRaw(server, { middleware: [mark] });
  await s.send(initAs(0, "raw", "2025-11-25"));
  await s.next();
  await s.send(req(1, "tools/call", { name: "who" }));
  assert.deepEqual(JSON.parse(textOf(await s.next())), { name: "raw (audited)", same: true });
  await s.close();
});

Deno.test("req.client is an own, enumerable, writable property of the request, as any other field", async () => {
  const server = new Server({ name: "t", version: "1" });
  addTool(
    server,
    { name: "copy", description: "Copies its request", inputSchema: schema(), annotations: RO },
    (r) => {
      const copy = { ...r };
      const keys = Object.keys(r).includes("client");
      (r as { client: unknown }).client = { name: "replaced", version: "", protocolVersion: "" };
      return json({
        keys,
        copied: copy.client?.name ?? null,
        json: JSON.parse(JSON.stringify(r)).client?.name ?? null,
      });
    },
  );
  const s = serveRaw(server);
  await s.send(initAs(0, "raw", "2025-11-25"));
  await s.next();
  await s.send(req(1, "tools/call", { name: "copy" }));
  const reply = await s.next();
  assert.equal(reply.error, undefined, JSON.stringify(reply.error));
  assert.deepEqual(JSON.parse(textOf(reply)), { keys: true, copied: "raw", json: "replaced" });
  await s.close();
});

Deno.test("a pattern tool's middleware sees the client the call was served under, even if it initializes again meanwhile", async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const seen: string[] = [];
  const audit: Middleware = (ctx, next) => {
    seen.push(`${ctx.client.name} ${ctx.client.protocolVersion}`);
    return next();
  };
  const server = new Server({ name: "t", version: "1" });
  registerPatternTool(
    server,
    {
      name: "write",
      description: "Writes",
      inputSchema: schema(),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async () => {
      await gate;
      return { patterns: ["write:x"] };
    },
    () => text("written"),
  );
  const s = serveRaw(server, { middleware: [audit] });
  await s.send(initAs(0, "first", "2025-06-18"));
  await s.next();
  await s.send(req(1, "tools/call", { name: "write" }));
  await s.send(initAs(2, "second", "2025-11-25"));
  assert.equal((await s.next()).id, 2);
  release();
  assert.equal((await s.next()).id, 1);
  assert.deepEqual(seen, ["first 2025-06-18"]);
  await s.close();
});

Deno.test("a long string id with a two-byte character is echoed exactly in every reply, kept as a large string is (no copy of it is quoted whole)", async () => {
  const id = `€${"a".repeat(70_000)}"\\\u0001`;
  const { dispatcher, sent, frames } = dispatcherOver(makeServer());
  const feed = (message: unknown) => dispatcher.receive(classify(message));
  feed(JSON.parse(init()));
  feed({ jsonrpc: "2.0", method: "notifications/initialized" });
  const first = frames.length;
  feed({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
  feed({ jsonrpc: "2.0", id: `${id}2`, method: "tools/call", params: { name: "missing", arguments: {} } });
  feed({ jsonrpc: "2.0", id: `${id}3`, method: "tools/list" });
  feed({ jsonrpc: "2.0", id: `${id}4`, method: "ping" });
  feed({
    jsonrpc: "2.0",
    id: `${id}5`,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "x" }, _meta: STATELESS_META },
  });
  await dispatcher.drain(1_000);
  const replies = sent.slice(first).map((line) => JSON.parse(line));
  assert.deepEqual(replies.map((reply) => reply.id), [id, `${id}2`, `${id}3`, `${id}4`, `${id}5`]);
  for (const [i, frame] of frames.slice(first).entries()) {
    assert.ok(typeof frame !== "string", `reply ${i} is kept in pieces, its id a large string`);
  }
  assert.equal(replies[0].result.content[0].text, "hi");
  assert.equal(replies[1].error.code, -32602);
  assert.ok(Array.isArray(replies[2].result.tools));
  assert.equal(replies[4].result.content[0].text, "x");
});

Deno.test("a batch (2025-03-26) whose items have long string ids with a two-byte character is one array in pieces, each id kept as a large string is", async () => {
  const id = `€${"a".repeat(70_000)}"\\\u0001`;
  const { dispatcher, sent, frames } = dispatcherOver(makeServer());
  const feed = (message: unknown) =>
    dispatcher.receive(messageOf(parseFrame(new TextEncoder().encode(JSON.stringify(message)))));
  feed(JSON.parse(init("2025-03-26")));
  feed({ jsonrpc: "2.0", method: "notifications/initialized" });
  const first = frames.length;
  feed([
    { jsonrpc: "2.0", id, method: "ping" },
    { jsonrpc: "2.0", id: 7, method: "ping" },
    { jsonrpc: "2.0", id: `${id}2`, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } },
  ]);
  await dispatcher.drain(1_000);
  // The array is sent once every item's reply is in: a few promise turns after the calls settle.
  for (let turn = 0; frames.length === first && turn < 10; turn++) await Promise.resolve();
  assert.equal(
    frames.length,
    first + 1,
    `one reply: the array; got ${sent.slice(first).map((l) => l.slice(0, 80)).join(" | ")}`,
  );
  assert.ok(typeof frames[first] !== "string", "the array is kept in pieces");
  const replies = JSON.parse(sent[first]);
  assert.deepEqual(replies.map((reply: { id: unknown }) => reply.id), [id, 7, `${id}2`]);
  assert.equal(replies[2].result.content[0].text, "hi");
});

Deno.test("a long string id with a two-byte character is kept as a large string in tasks/get, tasks/cancel and subscriptions/listen: replies, notifications, the completion", async () => {
  const id = `€${"a".repeat(70_000)}"\\\u0001`;
  const { dispatcher, sent, frames } = dispatcherOver(makeServer());
  const meta = {
    ...STATELESS_META,
    "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const feed = (message: unknown) => dispatcher.receive(classify(message));
  feed({ jsonrpc: "2.0", id, method: "tasks/get", params: { taskId: "none", _meta: meta } });
  feed({ jsonrpc: "2.0", id: `${id}2`, method: "tasks/cancel", params: { taskId: "none", _meta: meta } });
  const listen = (n: string, toolsListChanged: boolean) => ({
    jsonrpc: "2.0",
    id: `${id}${n}`,
    method: "subscriptions/listen",
    params: { notifications: toolsListChanged ? { toolsListChanged } : {}, _meta: meta },
  });
  feed(listen("3", true));
  feed(listen("4", false));
  await dispatcher.drain(1_000);
  const messages = sent.map((line) => JSON.parse(line));
  assert.deepEqual(messages.map((m) => m.id ?? m.params._meta["io.modelcontextprotocol/subscriptionId"]), [
    id,
    `${id}2`,
    `${id}3`,
    `${id}4`,
    `${id}4`,
    `${id}3`,
  ]);
  assert.match(messages[0].error.message, /Task not found/);
  assert.match(messages[1].error.message, /Task not found/);
  assert.equal(messages[2].method, "notifications/subscriptions/acknowledged");
  assert.equal(messages[4].result.resultType, "complete");
  assert.equal(messages[4].result._meta["io.modelcontextprotocol/subscriptionId"], `${id}4`);
  // The open subscription completes at shutdown, its id twice in one reply.
  assert.equal(messages[5].result._meta["io.modelcontextprotocol/subscriptionId"], `${id}3`);
  for (const [i, frame] of frames.entries()) {
    assert.ok(typeof frame !== "string", `frame ${i} is kept in pieces, its id a large string`);
  }
});
