import assert from "node:assert/strict";
import { connectInMemory, handshake, probe, serveRaw, spyHandler } from "@forge/toolkit/testing";
import { serve } from "@forge/toolkit/stdio";
import {
  addTool,
  intProp,
  type Middleware,
  registerPatternTool,
  requireString,
  schema,
  Server,
  strProp,
  text,
  ToolError,
} from "@forge/toolkit";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

Deno.test("the SDK client lists and calls tools in memory, through the real framer", async () => {
  const server = new Server({ name: "mem", version: "2.0.0" });
  addTool(server, {
    name: "upper",
    description: "Upper-cases",
    inputSchema: schema({ s: strProp("s") }, ["s"]),
    annotations: RO,
  }, (r) => text(requireString(r.arguments, "s").toUpperCase()));
  const session = await connectInMemory(server);
  assert.deepEqual(session.client.getServerVersion(), { name: "mem", version: "2.0.0" });
  const { tools } = await session.client.listTools();
  assert.equal(tools[0].name, "upper");
  assert.deepEqual(tools[0].annotations, RO);
  const r = await session.client.callTool({ name: "upper", arguments: { s: "abc" } });
  assert.deepEqual(r.content, [{ type: "text", text: "ABC" }]);
  await session.close();
  for (const line of session.lines) assert.equal(JSON.parse(line).jsonrpc, "2.0");
});

Deno.test("a ToolError thrown by a handler is an isError result with its message", async () => {
  const server = new Server({ name: "mem" });
  addTool(server, { name: "find", description: "Finds", inputSchema: schema(), annotations: RO }, () => {
    throw new ToolError('Record "42" not found');
  });
  const session = await connectInMemory(server);
  const r = await session.client.callTool({ name: "find", arguments: {} });
  assert.equal(r.isError, true);
  assert.deepEqual(r.content, [{ type: "text", text: 'Record "42" not found' }]);
  await session.close();
});

Deno.test("cancelling a call through the SDK aborts the handler's signal and the server keeps serving", async () => {
  const server = new Server({ name: "mem" });
  const aborted = Promise.withResolvers<unknown>();
  const started = Promise.withResolvers<void>();
  addTool(
    server,
    { name: "wait", description: "Waits", inputSchema: schema(), annotations: RO },
    (r) =>
      new Promise((_, reject) => {
        started.resolve();
        r.signal.addEventListener("abort", () => {
          aborted.resolve(r.signal.reason);
          reject(r.signal.reason);
        });
      }),
  );
  addTool(server, { name: "quick", description: "Quick", inputSchema: schema(), annotations: RO }, () => text("ok"));
  const session = await connectInMemory(server);
  const controller = new AbortController();
  const call = session.client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
  await started.promise;
  controller.abort("user gave up");
  await assert.rejects(call);
  assert.equal((await aborted.promise as DOMException).name, "AbortError");
  assert.deepEqual((await session.client.callTool({ name: "quick", arguments: {} })).content, [{
    type: "text",
    text: "ok",
  }]);
  await session.close();
});

Deno.test("a probe returns the patterns and never runs the handler; a real call runs it", async () => {
  const server = new Server({ name: "mem" });
  const write = spyHandler((r) => text(`wrote ${requireString(r.arguments, "path")}`));
  const read = spyHandler(() => text("read"));
  registerPatternTool(
    server,
    {
      name: "write_file",
      description: "Writes",
      inputSchema: schema({ path: strProp("p") }, ["path"]),
      annotations: WRITE,
    },
    (args) => ({ patterns: [`write:${requireString(args, "path")}`] }),
    write,
  );
  addTool(server, { name: "read_file", description: "Reads", inputSchema: schema(), annotations: RO }, read);
  const session = await connectInMemory(server);
  assert.deepEqual(await probe(session.client, "write_file", { path: "a/b.txt" }), {
    patterns: ["write:a/b.txt"],
    always: undefined,
    isError: false,
  });
  assert.equal((await probe(session.client, "read_file")).patterns.length, 0, "a tool without patterns probes to []");
  const refused = await probe(session.client, "write_file", {});
  assert.equal(refused.isError, true, "patterns() can refuse a bad argument");
  assert.equal(write.calls.length, 0);
  assert.equal(read.calls.length, 0);
  await session.client.callTool({ name: "write_file", arguments: { path: "x" } });
  assert.equal(write.calls.length, 1);
  await session.close();
});

/** A server whose one tool, `held`, waits for `gate`: served raw with `options`, and initialized. */
async function heldServer(options: Parameters<typeof serveRaw>[1], version = "2025-11-25") {
  const server = new Server({ name: "mem" });
  const gate = Promise.withResolvers<void>();
  addTool(server, { name: "held", description: "Held", inputSchema: schema(), annotations: RO }, async () => {
    await gate.promise;
    return text("released");
  });
  const s = serveRaw(server, options);
  await s.send(
    `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"${version}","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
  );
  await s.next();
  return { s, gate };
}

/** A JSON-RPC message as the raw tests read it. */
type Reply = Record<string, unknown>;

/** Asserts that `reply` refuses request `id` as busy: it would bring the calls in flight past `limit` bytes (maxInFlightBytes). */
function assertBusyBytes(reply: Reply, id: unknown, limit: number): void {
  assert.equal(reply.id, id);
  assert.equal(
    (reply.error as { message: string }).message,
    `Server busy: this call would bring the calls in flight past ${limit} bytes of requests and replies (maxInFlightBytes); retry later`,
  );
}

/** A 2026-07-28 request line. */
const request = (id: unknown, method: string, params: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });
const MODERN = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
};

Deno.test("a line of only a BOM, or a BOM then spaces, is blank: no reply, as the contract says of blank lines", async () => {
  const { s, gate } = await heldServer({});
  gate.resolve();
  await s.send(new Uint8Array([0xef, 0xbb, 0xbf, 0x0a, 0xef, 0xbb, 0xbf, 0x20, 0x20, 0x0d, 0x0a]));
  await s.send('\ufeff{"jsonrpc":"2.0","id":"after","method":"ping"}');
  assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: "after", result: {} });
  await s.close();
});

Deno.test("calls past maxInFlight are refused with a clear error, the rest complete", async () => {
  const { s, gate } = await heldServer({ maxInFlight: 3 });
  for (let i = 1; i <= 5; i++) {
    await s.send(JSON.stringify({ jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "held" } }));
  }
  const busy = [await s.next(), await s.next()];
  assert.deepEqual(busy.map((b) => b.id), [4, 5]);
  assert.match((busy[0].error as { message: string }).message, /Server busy: 3 calls in flight \(maxInFlight\)/);
  gate.resolve();
  const done = [await s.next(), await s.next(), await s.next()];
  assert.deepEqual(done.map((d) => d.id).sort(), [1, 2, 3]);
  await s.close();
});

Deno.test("calls that would hold more than maxInFlightBytes of requests together are refused as busy; one alone never is", async () => {
  const { s, gate } = await heldServer({ maxInFlightBytes: 1000 });
  // Each call is ~330 bytes (its id says so) and holds ~460 as parsed while it waits: two fit, the third would pass
  // 1,000.
  const call = (i: number, pad: number) =>
    JSON.stringify({ jsonrpc: "2.0", id: `${i}-${"p".repeat(pad)}`, method: "tools/call", params: { name: "held" } });
  for (let i = 1; i <= 3; i++) await s.send(call(i, 250));
  // A ping behind them is answered at once: the third call's refusal, if any, comes before it.
  await s.send('{"jsonrpc":"2.0","id":"ping","method":"ping"}');
  const refused = await s.next();
  assert.equal((await s.next()).id, "ping");
  assertBusyBytes(refused, refused.id, 1000);
  assert.match(String(refused.id), /^3-/);
  gate.resolve();
  const done = [await s.next(), await s.next()];
  assert.deepEqual(done.map((d) => String(d.id).slice(0, 2)).sort(), ["1-", "2-"]);
  // With nothing in flight, a call larger than the bound alone runs.
  await s.send(call(4, 2000));
  assert.equal(((await s.next()).result as { content: { text: string }[] }).content[0].text, "released");
  await s.close();
});

Deno.test("what calls that wait hold is counted as parsed: a request of tiny members counts far more than its bytes", async () => {
  const { s, gate } = await heldServer({ maxInFlightBytes: 200_000 });
  // 2,000 empty objects: ~6 KB of bytes, ~150 KB as parsed (heldCost). By their bytes, thirty such calls fit.
  const tiny = (id: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "held", _meta: { pad: Array.from({ length: 2_000 }, () => ({})) } },
    });
  assert.ok(tiny(1).length < 7_000);
  await s.send(tiny(1));
  await s.send(tiny(2));
  const small = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "held" } });
  await s.send(small);
  assertBusyBytes(await s.next(), 2, 200_000);
  gate.resolve();
  const done = [await s.next(), await s.next()];
  assert.deepEqual(done.map((d) => d.id).sort(), [1, 3], "a small call still joins the large one");
  await s.close();
});

/** The `_meta` of a 2026-07-28 client that declares the tasks extension. */
const TASKS = {
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
/** 2,000 empty objects: ~6 KB of bytes, ~150 KB as parsed. */
const PAD = Array.from({ length: 2_000 }, () => ({}));

/** Registers `long`, a task tool that runs `handler`. */
function addLongTask(server: Server, handler: () => Promise<ReturnType<typeof text>>): void {
  addTool(server, {
    name: "long",
    description: "Runs until released",
    inputSchema: schema(),
    annotations: RO,
    task: true,
  }, handler);
}

Deno.test("a task holds its request against maxInFlightBytes while it runs, as a call that waits does", async () => {
  const server = new Server({ name: "t" });
  const gate = Promise.withResolvers<void>();
  const released = async () => (await gate.promise, text("released"));
  addLongTask(server, released);
  addTool(
    server,
    { name: "held", description: "Waits until released", inputSchema: schema(), annotations: RO },
    released,
  );
  const s = serveRaw(server, { maxInFlightBytes: 200_000 });
  const [pad, tasks] = [PAD, TASKS];
  await s.send(request(1, "tools/call", { name: "long", _meta: { ...MODERN, ...tasks, pad } }));
  const created = await s.next();
  assert.equal(created.id, 1);
  assert.equal(created.error, undefined, "the task is created");
  await s.send(request(2, "tools/call", { name: "held", _meta: { ...MODERN, pad } }));
  assertBusyBytes(await s.next(), 2, 200_000);
  gate.resolve();
  // Once the task's handler has ended, what it held is given back: the same call is served.
  const taskId = (created.result as { taskId: string }).taskId;
  for (let poll = 10;; poll++) {
    await s.send(request(poll, "tasks/get", { taskId, _meta: { ...MODERN, ...tasks } }));
    if ((((await s.next()).result) as { status: string }).status !== "working") break;
  }
  await s.send(request(3, "tools/call", { name: "held", _meta: { ...MODERN, pad } }));
  const served = await s.next();
  assert.equal(served.id, 3);
  assert.deepEqual((served.result as { content: unknown }).content, [{ type: "text", text: "released" }]);
  await s.close();
});

Deno.test("a cancelled task whose handler ignores its signal holds its request against maxInFlightBytes until the handler ends", async () => {
  const server = new Server({ name: "t" });
  const gate = Promise.withResolvers<void>();
  const ended = Promise.withResolvers<void>();
  // Ignores its signal: it runs on after tasks/cancel until the test lets it end.
  addLongTask(server, async () => {
    await gate.promise;
    ended.resolve();
    return text("late");
  });
  addTool(server, { name: "quick", description: "Answers", inputSchema: schema(), annotations: RO }, async () => {
    await Promise.resolve();
    return text("served");
  });
  const s = serveRaw(server, { maxInFlightBytes: 200_000 });
  const [pad, tasks] = [PAD, TASKS];
  await s.send(request(1, "tools/call", { name: "long", _meta: { ...MODERN, ...tasks, pad } }));
  const taskId = ((await s.next()).result as { taskId: string }).taskId;
  await s.send(request(2, "tasks/cancel", { taskId, _meta: { ...MODERN, ...tasks } }));
  assert.equal((await s.next()).error, undefined, "the task is cancelled");
  // Its handler still runs and still holds the request: a call of the same size would pass the bound.
  await s.send(request(3, "tools/call", { name: "quick", _meta: { ...MODERN, pad } }));
  assertBusyBytes(await s.next(), 3, 200_000);
  gate.resolve();
  await ended.promise;
  // A round trip after the handler's end: what it held is given back.
  await s.send(request(4, "ping", { _meta: MODERN }));
  assert.equal((await s.next()).id, 4);
  await s.send(request(5, "tools/call", { name: "quick", _meta: { ...MODERN, pad } }));
  const served = await s.next();
  assert.equal(served.id, 5);
  assert.deepEqual((served.result as { content: unknown }).content, [{ type: "text", text: "served" }]);
  await s.close();
});

Deno.test("answers a tasks/update gives a running task are held against maxInFlightBytes until its handler ends", async () => {
  const server = new Server({ name: "t" });
  const gate = Promise.withResolvers<void>();
  // Keeps the client's answer while it works on, as a long task would.
  addTool(server, {
    name: "ask",
    description: "Asks, then works until released",
    inputSchema: schema(),
    annotations: RO,
    task: true,
  }, async (req) => {
    const form = { message: "Text?", requestedSchema: schema({ s: strProp("s") }, ["s"]) };
    const answers = await Promise.all([req.elicit(form, { key: "one" }), req.elicit(form, { key: "two" })]);
    await gate.promise;
    return text(`kept ${answers.map((a) => String(a.content?.s).length).join(" ")}`);
  });
  addTool(server, { name: "quick", description: "Answers", inputSchema: schema(), annotations: RO }, async () => {
    await Promise.resolve();
    return text("served");
  });
  const s = serveRaw(server, { maxInFlightBytes: 200_000 });
  const tasks = {
    "io.modelcontextprotocol/clientCapabilities": {
      elicitation: {},
      extensions: { "io.modelcontextprotocol/tasks": {} },
    },
  };
  await s.send(request(1, "tools/call", { name: "ask", _meta: { ...MODERN, ...tasks } }));
  const taskId = ((await s.next()).result as { taskId: string }).taskId;
  for (let poll = 10;; poll++) {
    await s.send(request(poll, "tasks/get", { taskId, _meta: { ...MODERN, ...tasks } }));
    const view = (await s.next()).result as { inputRequests?: Record<string, unknown> };
    if (Object.keys(view.inputRequests ?? {}).length === 2) break;
  }
  const update = (id: number, key: string, s: string) =>
    request(id, "tasks/update", {
      taskId,
      inputResponses: { [key]: { action: "accept", content: { s } } },
      _meta: { ...MODERN, ...tasks },
    });
  // 150 KB of answer, which the handler keeps: the update alone is within the bound, and is taken.
  await s.send(update(2, "one", "a".repeat(150_000)));
  assert.equal((await s.next()).error, undefined, "the answer is taken");
  // Before, the answer was counted by nothing: 64 tasks could each keep answers of up to maxMessageBytes.
  await s.send(request(3, "tools/call", { name: "quick", _meta: { ...MODERN, pad: PAD } }));
  assertBusyBytes(await s.next(), 3, 200_000);
  // A second answer as large would pass the bound with the first: refused, and not delivered; a small one is taken.
  await s.send(update(4, "two", "b".repeat(150_000)));
  assertBusyBytes(await s.next(), 4, 200_000);
  await s.send(update(5, "two", "b"));
  assert.equal((await s.next()).error, undefined, "the small answer is taken");
  gate.resolve();
  for (let poll = 100;; poll++) {
    await s.send(request(poll, "tasks/get", { taskId, _meta: { ...MODERN, ...tasks } }));
    const view = (await s.next()).result as { status: string; result?: { content: { text: string }[] } };
    if (view.status === "working") continue;
    assert.equal(view.status, "completed");
    assert.equal(view.result?.content[0].text, "kept 150000 1");
    break;
  }
  // Once the handler has ended, what it held is given back: the same call is served.
  await s.send(request(6, "tools/call", { name: "quick", _meta: { ...MODERN, pad: PAD } }));
  const served = await s.next();
  assert.equal(served.id, 6);
  assert.deepEqual((served.result as { content: unknown }).content, [{ type: "text", text: "served" }]);
  await s.close();
});

/** A server of `ask` (initialized in 2025-06-18 by a client that can elicit and list roots), under `maxInFlightBytes`. */
async function askingServer(maxInFlightBytes: number, ask: Parameters<typeof addTool>[2]) {
  const server = new Server({ name: "t" });
  addTool(server, { name: "ask", description: "Asks the client", inputSchema: schema(), annotations: RO }, ask);
  addTool(server, { name: "quick", description: "Answers", inputSchema: schema(), annotations: RO }, async () => {
    await Promise.resolve();
    return text("served");
  });
  const s = serveRaw(server, { maxInFlightBytes });
  await handshake(s, { capabilities: { elicitation: {}, roots: {} } });
  return s;
}

/** An initialize-era call of `quick` whose request holds ~180 KB as parsed (see PAD). */
const padded = (id: number) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "quick", arguments: {}, pad: PAD } });

/** Sends padded call `id` and requires it served: what the calls in flight hold leaves room for it. */
async function assertPaddedServed(s: Awaited<ReturnType<typeof askingServer>>, id: number): Promise<void> {
  await s.send(padded(id));
  const served = await s.next();
  assert.equal(served.id, id);
  assert.deepEqual((served.result as { content: unknown }).content, [{ type: "text", text: "served" }]);
}

Deno.test("answers an initialize-era handler is given are held against maxInFlightBytes until it ends; one past the bound fails its question", async () => {
  const gate = Promise.withResolvers<void>();
  const s = await askingServer(200_000, async (req) => {
    const form = { message: "Text?", requestedSchema: schema({ s: strProp("s") }, ["s"]) };
    // Keeps both answers while it works on, as a long handler would.
    const answers = await Promise.allSettled([req.elicit(form), req.elicit(form)]);
    await gate.promise;
    return text(
      answers.map((a) => a.status === "fulfilled" ? `kept ${String(a.value.content?.s).length}` : a.reason.message)
        .join("; "),
    );
  });
  await s.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask" } }));
  const asked = [await s.next(), await s.next()];
  assert.deepEqual(asked.map((q) => q.method), ["elicitation/create", "elicitation/create"]);
  const answer = (id: unknown, text: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept", content: { s: text } } });
  // 150 KB of answer, which the handler keeps: within the bound with the call's request, and taken.
  await s.send(answer(asked[0].id, "a".repeat(150_000)));
  // It counts: uncounted, 64 questions of one handler could each keep an answer of up to maxMessageBytes.
  await s.send(padded(2));
  assertBusyBytes(await s.next(), 2, 200_000);
  // A second answer as large would pass the bound with the first: refused, and its question fails saying why.
  await s.send(answer(asked[1].id, "b".repeat(150_000)));
  await s.send('{"jsonrpc":"2.0","id":3,"method":"ping"}');
  assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 3, result: {} });
  assert.ok(
    s.log.some((l) => l.startsWith("an answer to a question of request 1 was refused: its answer would hold")),
    s.log.join("\n"),
  );
  gate.resolve();
  const done = await s.next();
  assert.equal(done.id, 1);
  const said = (done.result as { content: { text: string }[] }).content[0].text;
  assert.match(
    said,
    /^kept 150000; Cannot get the client's answer to elicitation\/create: its answer would hold \d+ bytes where the calls in flight already hold \d+ of maxInFlightBytes \(200000\); it was dropped$/,
  );
  // Once the handler has ended, what it held is given back: the same call is served.
  await assertPaddedServed(s, 4);
  await s.close();
});

Deno.test("the client's roots kept for later calls (initialize era) are held against maxInFlightBytes until it says they changed", async () => {
  const s = await askingServer(200_000, async (req) => text(`${(await req.listRoots()).length} roots`));
  await s.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask" } }));
  const asked = await s.next();
  assert.equal(asked.method, "roots/list");
  const roots = Array.from({ length: 300 }, (_, i) => ({ uri: `file:///${"r".repeat(100)}/${i}` }));
  await s.send(JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { roots } }));
  assert.deepEqual((await s.next()).result, { content: [{ type: "text", text: "300 roots" }] });
  // The call has ended, but its answer is kept for the next call that lists roots: it still counts.
  await s.send(padded(2));
  assertBusyBytes(await s.next(), 2, 200_000);
  // Once the client says its roots changed, the kept answer is dropped, and so is what it held.
  await s.send('{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}');
  await assertPaddedServed(s, 3);
  await s.close();
});

const FORM = { message: "Name?", requestedSchema: schema({ name: strProp("Name") }, ["name"]) };

/**
 * A server whose tool `fire` asks `count` questions and answers at once,
 * awaiting none (each failure is caught, counted in `failed`; `allFailed`
 * resolves at the last), and whose tool `ask` asks one and awaits it.
 */
function firingServer(count: number): { server: Server; failed: string[]; allFailed: Promise<void> } {
  const failed: string[] = [];
  const allFailed = Promise.withResolvers<void>();
  const server = new Server({ name: "t" });
  addTool(
    server,
    { name: "fire", description: "Asks, awaits nothing", inputSchema: schema(), annotations: RO },
    (req) => {
      for (let i = 0; i < count; i++) {
        req.elicit(FORM).catch((err: Error) => {
          failed.push(err.message);
          if (failed.length === count) allFailed.resolve();
        });
      }
      return text("fired");
    },
  );
  addTool(server, { name: "ask", description: "Asks, awaits", inputSchema: schema(), annotations: RO }, async (req) => {
    const answer = await req.elicit(FORM);
    return text(`Hi, ${answer.content?.name}`);
  });
  return { server, failed, allFailed: allFailed.promise };
}

Deno.test("initialize era: questions a handler did not await, still waiting for the client's initialized, fail when its call answers", async () => {
  // Kept until the client said `initialized` (never, for one that does not), each held its call's closures.
  const { server, failed, allFailed } = firingServer(3);
  const s = serveRaw(server);
  const call = (id: number, name: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name } });
  try {
    await s.send(JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: { elicitation: {} },
        clientInfo: { name: "c", version: "1" },
      },
    }));
    assert.equal((await s.next()).id, 0);
    // No notifications/initialized: the three questions wait for it, and the call answers at once.
    await s.send(call(1, "fire"));
    const reply = await s.next();
    assert.equal(reply.id, 1, JSON.stringify(reply).slice(0, 200));
    // The call's end ended their waits: said on stderr as the reply was made, each question failed.
    assert.ok(
      s.log.some((l) => l.startsWith("request 1 ended with 3 question(s) to the client unanswered: they fail")),
      s.log.join("\n"),
    );
    await allFailed;
    assert.deepEqual(
      failed,
      Array(3).fill(
        "Cannot get the client's answer to elicitation/create: the tool call that asked has ended",
      ),
    );
    // Once the client initializes, only a live call's question goes out.
    await s.send('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    await s.send(call(2, "ask"));
    const asked = await s.next();
    assert.equal(asked.method, "elicitation/create", JSON.stringify(asked).slice(0, 200));
    await s.send(
      JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { action: "accept", content: { name: "Ada" } } }),
    );
    const answered = await s.next();
    assert.equal(answered.id, 2);
    assert.deepEqual((answered.result as { content: unknown }).content, [{ type: "text", text: "Hi, Ada" }]);
  } finally {
    await s.close();
  }
});

Deno.test("initialize era: questions a handler did not await fail when its call answers and free their places among the 64 that may wait; a late answer is dropped unanswered", async () => {
  // Kept until a silent client answered, 64 such questions of one call would make every later question of every call
  // fail ("64 requests already wait for its answers").
  const { server, failed, allFailed } = firingServer(70);
  // Drops its question's promise (no catch): its failure must not end the server as an unhandled rejection.
  addTool(
    server,
    { name: "drop", description: "Asks, drops it", inputSchema: schema(), annotations: RO },
    async (req) => {
      void req.elicit(FORM);
      await Promise.resolve();
      return text("dropped");
    },
  );
  const s = serveRaw(server);
  const call = (id: number, name: string) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name } });
  try {
    await handshake(s, { capabilities: { elicitation: {} } });
    await s.send(call(1, "fire"));
    const asked: unknown[] = [];
    const cancelled: unknown[] = [];
    let reply: Record<string, unknown> | undefined;
    while (reply === undefined || cancelled.length < asked.length) {
      const msg = await s.next();
      if (msg.method === "elicitation/create") asked.push(msg.id);
      else if (msg.method === "notifications/cancelled") {
        cancelled.push((msg.params as { requestId: unknown }).requestId);
      } else reply = msg;
      // Without the fix no cancellation comes: the next call decides, below.
      if (reply !== undefined && cancelled.length === 0) break;
    }
    assert.equal(reply!.id, 1);
    assert.deepEqual((reply!.result as { content: unknown }).content, [{ type: "text", text: "fired" }]);
    assert.equal(asked.length, 64, "the 65th to 70th were refused: 64 already waited");
    // A later call's question is sent, not refused for the limit.
    await s.send(call(2, "ask"));
    const next = await s.next();
    assert.equal(next.method, "elicitation/create", `asked, not refused: ${JSON.stringify(next).slice(0, 200)}`);
    assert.deepEqual(cancelled.sort(), asked.sort(), "the client heard each abandoned question is cancelled");
    await allFailed;
    assert.equal(failed.filter((m) => /64 requests already wait for its answers/.test(m)).length, 6);
    assert.deepEqual(
      [...new Set(failed.filter((m) => !/64 requests/.test(m)))],
      ["Cannot get the client's answer to elicitation/create: the tool call that asked has ended"],
    );
    assert.equal(failed.length, 70);
    assert.ok(
      s.log.some((l) => l.startsWith("request 1 ended with 64 question(s) to the client unanswered: they fail")),
      s.log.join("\n"),
    );
    // A late answer to an abandoned question reaches no one and is not answered: the next line is call 2's reply.
    await s.send(
      JSON.stringify({ jsonrpc: "2.0", id: asked[0], result: { action: "accept", content: { name: "X" } } }),
    );
    await s.send(
      JSON.stringify({ jsonrpc: "2.0", id: next.id, result: { action: "accept", content: { name: "Ada" } } }),
    );
    const answered = await s.next();
    assert.equal(answered.id, 2, JSON.stringify(answered).slice(0, 200));
    assert.deepEqual((answered.result as { content: unknown }).content, [{ type: "text", text: "Hi, Ada" }]);
    // A question whose promise the handler dropped fails as well, and the server serves on.
    await s.send(call(3, "drop"));
    const dropped = [await s.next(), await s.next(), await s.next()];
    assert.deepEqual(dropped.map((m) => m.method ?? m.id), ["elicitation/create", "notifications/cancelled", 3]);
    await s.send('{"jsonrpc":"2.0","id":4,"method":"ping"}');
    assert.deepEqual(await s.next(), { jsonrpc: "2.0", id: 4, result: {} });
  } finally {
    await s.close();
  }
});

Deno.test("an item of a batch holds its own size against maxInFlightBytes, not its share of the batch's bytes", async () => {
  // 2025-03-26 is the session version whose stdio carries batches.
  const { s, gate } = await heldServer({ maxInFlightBytes: 200_000 }, "2025-03-26");
  const pad = "x".repeat(150_000);
  const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "held", _meta: { pad } } });
  // One waiting call of ~150 KB beside 1,023 notifications: its share of the batch's bytes was ~150 bytes.
  await s.send(JSON.stringify([call(1), ...Array.from({ length: 1_023 }, () => ({ jsonrpc: "2.0", method: "n/x" }))]));
  await s.send(JSON.stringify(call(2)));
  assertBusyBytes(await s.next(), 2, 200_000);
  gate.resolve();
  const [done] = await s.next() as unknown as Reply[];
  assert.equal(done.id, 1);
  await s.close();
});

/**
 * A server with one tool, `big`, that reserves `maxResultBytes` and answers only when the test resolves its gate
 * (one per call, in order), under `maxInFlightBytes` 10,000, initialized.
 */
async function gatedBig(maxResultBytes: number | ((args: Record<string, unknown>) => number)) {
  const server = new Server({ name: "mem" });
  const gates: PromiseWithResolvers<void>[] = [];
  addTool(server, {
    name: "big",
    description: "Waits, then answers",
    // `size` for the test of maxResultBytes' arguments; anything goes, so that what it reserves decides alone.
    inputSchema: { type: "object", properties: { size: {} } },
    annotations: RO,
    maxResultBytes,
  }, async () => {
    const gate = Promise.withResolvers<void>();
    gates.push(gate);
    await gate.promise;
    return text("done");
  });
  const s = serveRaw(server, { maxInFlightBytes: 10_000 });
  await s.send(request(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {} }));
  await s.next();
  return { s, gates };
}

Deno.test("a tool's maxResultBytes is reserved from a call's start until its reply is written: calls past maxInFlightBytes are refused as busy", async () => {
  let bound = 4_000;
  // A function: read at each call's start, so a change applies to the next call.
  const { s, gates } = await gatedBig(() => bound);
  const call = (id: number) => request(id, "tools/call", { name: "big" });
  // Requests of ~60 bytes: by them alone a hundred calls fit; with 4,000 reserved each, two do.
  for (let id = 1; id <= 3; id++) await s.send(call(id));
  assertBusyBytes(await s.next(), 3, 10_000);
  assert.equal(gates.length, 2, "the refused call never ran");
  // Once a reply is written, its reservation is given back: a new call joins the one still waiting.
  gates[0].resolve();
  assert.equal((await s.next()).id, 1);
  await s.send(call(4));
  await s.send(call(5));
  assertBusyBytes(await s.next(), 5, 10_000);
  // A larger bound is read at the next call: one alone is never refused, and no second joins it.
  gates[1].resolve();
  gates[2].resolve();
  assert.deepEqual([(await s.next()).id, (await s.next()).id].sort(), [2, 4]);
  bound = 9_000;
  await s.send(call(6));
  await s.send(call(7));
  assertBusyBytes(await s.next(), 7, 10_000);
  gates[3].resolve();
  assert.equal((await s.next()).id, 6);
  await s.close();
});

Deno.test("a tool's maxResultBytes function is given the call's arguments as sent: a call that asks for less reserves less", async () => {
  const seen: unknown[] = [];
  // The tool's replies grow with `size`; one of the wrong type reserves the worst case (and is refused later anyway).
  const { s, gates } = await gatedBig((args) => {
    seen.push(args.size);
    return typeof args.size === "number" && args.size > 0 && args.size <= 9_000 ? args.size : 9_000;
  });
  const call = (id: number, size: unknown) => request(id, "tools/call", { name: "big", arguments: { size } });
  // Three calls of 2,000 fit in 10,000 with their requests; a fourth of 4,000 does not, one of 1,000 does.
  for (let id = 1; id <= 3; id++) await s.send(call(id, 2_000));
  await s.send(call(4, 4_000));
  assertBusyBytes(await s.next(), 4, 10_000);
  await s.send(call(5, 1_000));
  await s.send(call(6, "2000"));
  assertBusyBytes(await s.next(), 6, 10_000);
  assert.equal(gates.length, 4, "calls 1, 2, 3 and 5 run");
  assert.deepEqual(seen, [2_000, 2_000, 2_000, 4_000, 1_000, "2000"]);
  for (const gate of gates) gate.resolve();
  assert.deepEqual([(await s.next()).id, (await s.next()).id, (await s.next()).id, (await s.next()).id].sort(), [
    1,
    2,
    3,
    5,
  ]);
  await s.close();
});

Deno.test("a probe reserves no reply: probes sent beside calls that hold most of maxInFlightBytes are answered, not busy", async () => {
  const { s, gates } = await gatedBig(4_000);
  // Two calls hold 8,000 bytes of reply and their requests: a third call would pass the bound, a probe must not.
  await s.send(request(1, "tools/call", { name: "big" }));
  await s.send(request(2, "tools/call", { name: "big" }));
  for (let id = 3; id <= 5; id++) {
    await s.send(request(id, "tools/call", { name: "big", _meta: { "forge.permission_patterns": true } }));
    const reply = await s.next();
    assert.equal(reply.id, id);
    assert.match(JSON.stringify(reply.result), /Probe only, not run/, JSON.stringify(reply));
  }
  await s.send(request(6, "tools/call", { name: "big" }));
  assertBusyBytes(await s.next(), 6, 10_000);
  assert.equal(gates.length, 2, "no probe ran the handler");
  gates[0].resolve();
  gates[1].resolve();
  assert.deepEqual([(await s.next()).id, (await s.next()).id].sort(), [1, 2]);
  await s.close();
});

Deno.test("a cancelled or timed-out call whose handler ignores its signal counts against maxInFlight and maxInFlightBytes until the handler ends", async () => {
  const server = new Server({ name: "mem" });
  const handlers: PromiseWithResolvers<void>[] = [];
  const stubborn = async () => {
    const handler = Promise.withResolvers<void>();
    handlers.push(handler);
    await handler.promise;
    return text("late");
  };
  const tool = { description: "Ignores its signal", inputSchema: schema(), annotations: RO, maxResultBytes: 4_000 };
  addTool(server, { ...tool, name: "stubborn" }, stubborn);
  addTool(server, { ...tool, name: "brief", timeoutMs: 20, maxResultBytes: 1_000 }, stubborn);
  const s = serveRaw(server, { maxInFlight: 3, maxInFlightBytes: 10_000 });
  await s.send(request(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: {} }));
  await s.next();
  const call = (id: number, name = "stubborn") => request(id, "tools/call", { name });
  const cancel = (id: number) =>
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: id } });
  // A ping behind a call is answered at once: a refusal of the call, if any, comes before it.
  const ping = async (id: string) => (await s.send(request(id, "ping", {})), await s.next());
  await s.send(call(1));
  await s.send(call(2));
  await s.send(cancel(1));
  // Its id is free at once, but its handler still runs and still holds its 4,000 bytes: a third would pass 10,000.
  await s.send(call(1));
  assertBusyBytes(await s.next(), 1, 10_000);
  // The refusal says on stderr why the server is full.
  assert.deepEqual(s.log.filter((line) => line.includes("busy: ")).map((line) => line.slice(line.indexOf("busy: "))), [
    "busy: 1 of the calls in flight is a handler still running after its call was cancelled or timed out (a handler that ignores req.signal holds its place and bytes until it ends)",
  ]);
  handlers[0].resolve();
  // Once the cancelled call's handler has ended, what it held is given back: the call is served.
  await s.send(call(3));
  assert.equal((await ping("p1")).id, "p1");
  assert.equal(handlers.length, 3);
  handlers[1].resolve();
  handlers[2].resolve();
  assert.deepEqual([(await s.next()).id, (await s.next()).id].sort(), [2, 3]);
  // A call its deadline ended is answered, and counted while its handler runs: three fill maxInFlight.
  for (let id = 4; id <= 6; id++) {
    await s.send(call(id, "brief"));
    assert.match(((await s.next()).error as { message: string }).message, /timed out after 20 ms/);
  }
  await s.send(call(7, "brief"));
  assert.match(((await s.next()).error as { message: string }).message, /Server busy: 3 calls in flight/);
  // Said again because the number changed, and once only however many calls are refused meanwhile.
  await s.send(call(9, "brief"));
  assert.match(((await s.next()).error as { message: string }).message, /Server busy: 3 calls in flight/);
  const said = s.log.filter((line) => line.includes("busy: "));
  assert.equal(said.length, 2, said.join("\n"));
  assert.match(said[1], /busy: 3 of the calls in flight are handlers still running after their calls were cancelled/);
  for (const handler of handlers.slice(3)) handler.resolve();
  await s.send(call(8));
  assert.equal((await ping("p2")).id, "p2", "the ended handlers gave back what they held");
  handlers[6].resolve();
  assert.equal((await s.next()).id, 8);
  await s.close();
});

Deno.test("an open subscriptions/listen holds its id against maxInFlightBytes until it ends (a red team held 1.6 GiB in 64)", async () => {
  const server = new Server({ name: "mem" });
  const s = serveRaw(server, { maxInFlightBytes: 200_000 });
  const listen = (id: string) =>
    request(id, "subscriptions/listen", { notifications: { toolsListChanged: true }, _meta: MODERN });
  const big = (n: number) => `${n}`.padEnd(150_000, "i");
  await s.send(listen(big(1)));
  const acknowledged = await s.next();
  assert.equal(acknowledged.method, "notifications/subscriptions/acknowledged", "one alone is never refused");
  await s.send(listen(big(2)));
  assertBusyBytes(await s.next(), big(2), 200_000);
  // Ended by the client, it gives back what it held: the next one opens.
  await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: big(1) } }));
  await s.send(listen(big(3)));
  assert.equal((await s.next()).method, "notifications/subscriptions/acknowledged");
  await s.close();
});

Deno.test("middleware run in order around the handler, can short-circuit, and their errors follow the handler contract", async () => {
  const order: string[] = [];
  const outer: Middleware = async (ctx, next) => {
    order.push(`outer>${ctx.tool.name}:${ctx.probe}`);
    const r = await next();
    order.push("outer<");
    return r;
  };
  const inner: Middleware = async (ctx, next) => {
    order.push("inner>");
    if (ctx.arguments.deny === true) return { content: [{ type: "text", text: "refused by policy" }], isError: true };
    if (ctx.arguments.boom === true) throw new Error("middleware bug");
    if (ctx.arguments.domain === true) throw new ToolError("domain refusal");
    const r = await next();
    order.push("inner<");
    return { ...r, content: [...r.content, { type: "text", text: "+inner" }] };
  };
  const server = new Server({ name: "mem" });
  const handler = spyHandler(() => {
    order.push("handler");
    return text("h");
  });
  addTool(server, {
    name: "t",
    description: "T",
    inputSchema: schema({}, [], { additionalProperties: true }),
    annotations: RO,
  }, handler);
  const session = await connectInMemory(server, { serve: { middleware: [outer, inner] } });
  const r = await session.client.callTool({ name: "t", arguments: {} });
  assert.deepEqual(r.content, [{ type: "text", text: "h" }, { type: "text", text: "+inner" }]);
  assert.deepEqual(order, ["outer>t:false", "inner>", "handler", "inner<", "outer<"]);
  const denied = await session.client.callTool({ name: "t", arguments: { deny: true } });
  assert.equal(denied.isError, true);
  const domain = await session.client.callTool({ name: "t", arguments: { domain: true } });
  assert.deepEqual(domain.content, [{ type: "text", text: "domain refusal" }]);
  await assert.rejects(session.client.callTool({ name: "t", arguments: { boom: true } }), /Internal error \(ref/);
  assert.equal(handler.calls.length, 1);
  await session.close();
});

Deno.test("a middleware sees the deadline as a TimeoutError from next()", async () => {
  let seen = "";
  const watch: Middleware = async (_ctx, next) => {
    try {
      return await next();
    } catch (err) {
      seen = (err as DOMException).name;
      throw err;
    }
  };
  const server = new Server({ name: "mem" });
  addTool(
    server,
    { name: "never", description: "Never", inputSchema: schema(), annotations: RO, timeoutMs: 50 },
    () => new Promise(() => {}),
  );
  const session = await connectInMemory(server, { serve: { middleware: [watch] } });
  await assert.rejects(session.client.callTool({ name: "never", arguments: {} }), /timed out after 50 ms/);
  assert.equal(seen, "TimeoutError");
  await session.close();
});

Deno.test("the SDK client sees notifications/tools/list_changed for a tool added after start", async () => {
  const server = new Server({ name: "mem" });
  addTool(server, { name: "first", description: "First", inputSchema: schema(), annotations: RO }, () => text("1"));
  const session = await connectInMemory(server);
  addTool(server, { name: "second", description: "Second", inputSchema: schema(), annotations: RO }, () => text("2"));
  // The notification is written before the server reads the next request, so it precedes this reply.
  assert.deepEqual((await session.client.listTools()).tools.map((t: { name: string }) => t.name), ["first", "second"]);
  assert.ok(session.lines.some((l) => JSON.parse(l).method === "notifications/tools/list_changed"));
  await session.close();
});

Deno.test("a thousand concurrent calls each get exactly one reply", async () => {
  const server = new Server({ name: "mem" });
  const inputSchema = schema({ n: intProp("n") }, ["n"]);
  addTool(server, { name: "id", description: "Echo n", inputSchema, annotations: RO }, async (r) => {
    // The handler's own work, not a wait of the test: it scrambles the order in which calls end.
    await new Promise((res) => setTimeout(res, Math.random() * 5));
    return text(String(r.arguments.n));
  });
  const session = await connectInMemory(server);
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, n) => session.client.callTool({ name: "id", arguments: { n } })),
  );
  results.forEach((r: { content: unknown }, n: number) =>
    assert.deepEqual(r.content, [{ type: "text", text: String(n) }])
  );
  await session.close();
  const ids = session.lines.map((l) => JSON.parse(l).id).filter((id) => typeof id === "number");
  assert.equal(new Set(ids).size, ids.length, "no duplicated reply");
});

Deno.test("serve() refuses a limit that is not a positive number before it reads anything", () => {
  const server = new Server({ name: "mem" });
  const io = {
    reader: { read: () => Promise.resolve(null) },
    writer: { write: (b: Uint8Array) => Promise.resolve(b.length) },
  };
  for (
    const name of [
      "maxMessageBytes",
      "timeoutMs",
      "maxInFlight",
      "shutdownGraceMs",
      "maxQueuedBytes",
      "maxDepth",
      "maxContainers",
    ] as const
  ) {
    assert.throws(
      () => serve(server, io, { [name]: 0 }),
      (err: Error) =>
        err instanceof RangeError && err.message.startsWith(`Cannot serve: ${name} must be a positive number`),
    );
  }
});

Deno.test("past maxQueuedBytes of unread replies, serve() starts no new call and holds at most 1 MiB more input", async () => {
  const server = new Server({ name: "mem" });
  let started = 0;
  addTool(server, { name: "blob", description: "600 bytes", inputSchema: schema(), annotations: RO }, () => {
    started++;
    return text("b".repeat(600));
  });
  const line = (id: number) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "blob", _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" } },
    }) + "\n";
  // An endless client: every read gets ten more calls.
  let reads = 0;
  let bytesRead = 0;
  let id = 0;
  const someRead = Promise.withResolvers<void>();
  const reader = {
    read(buffer: Uint8Array) {
      reads++;
      let chunk = "";
      for (let i = 0; i < 10; i++) chunk += line(++id);
      const bytes = new TextEncoder().encode(chunk);
      buffer.set(bytes);
      bytesRead += bytes.length;
      if (bytesRead >= 128 * 1024) someRead.resolve();
      return Promise.resolve(bytes.length);
    },
  };
  // A client that never reads stdout: the first write never completes.
  const stuck = Promise.withResolvers<number>();
  const connection = serve(server, { reader, writer: { write: () => stuck.promise } }, {
    maxQueuedBytes: 2000,
    shutdownGraceMs: 10,
    log: () => {},
  });
  await someRead.promise;
  // A fixed wait, only to prove that something does not happen: no read past the bound.
  for (let turn = 0; turn < 20; turn++) await new Promise((r) => setTimeout(r, 1));
  // Three replies of ~700 bytes pass the bound; reading goes on (to notice
  // the end of input) only until 1 MiB of messages wait (plus one read), and starts nothing.
  // A held message counts 512 bytes beside its own (the frame and its copy): ~2,000 of them are 1 MiB.
  assert.ok(reads > 1 && bytesRead <= 1024 * 1024 + 64 * 1024, `${reads} reads, ${bytesRead} bytes`);
  assert.ok(id <= (1024 * 1024) / 512 + 10, `${id} messages read`);
  assert.ok(started <= 10, `${started} calls started`);
  stuck.reject(new Deno.errors.BrokenPipe("gone"));
  await connection.closed;
});

Deno.test("a message that goes over maxMessageBytes in its last few bytes is refused under its id, read from its end", async () => {
  const s = serveRaw(new Server({ name: "t" }), { maxMessageBytes: 5_000 });
  const start = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"';
  const end = '"}},"id":"late"}';
  // Longer than the 4 KiB of its start that are kept: only its end can name it.
  const line = start + "x".repeat(5_004 - start.length - end.length) + end;
  // The first 5,001 bytes wait for the next read (one byte past the limit may be a `\r`); the last 3 put it over.
  await s.send(new TextEncoder().encode(line.slice(0, 5_001)));
  await s.send(new TextEncoder().encode(line.slice(5_001) + "\n"));
  const reply = await s.next();
  assert.equal(reply.id, "late");
  assert.equal((reply.error as { code: number }).code, -32600);
  assert.match((reply.error as { message: string }).message, /^Message too large: 5004 bytes/);
  await s.close();
});
