import assert from "node:assert/strict";
import { addTool, schema, Server, text, type ToolResult } from "@forge/toolkit";
import type { CallContext, Tool } from "@forge/toolkit";
import { serveRaw } from "@forge/toolkit/testing";
import { concurrencyLimit } from "./concurrency_limit.ts";

const RW = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

function tool(name: string): Tool {
  return { name, description: "d", inputSchema: { type: "object", properties: {} }, annotations: RW };
}

/** A context whose handler ends with `handlerEnd` (at once by default, as when next() is the handler itself). */
function ctx(name: string, probe = false, handlerEnd: Promise<void> = Promise.resolve()): CallContext {
  return { tool: tool(name), probe, untilHandlerEnds: () => handlerEnd } as unknown as CallContext;
}

/** A call held open until the test ends it, resolving or rejecting. */
function held() {
  const { promise, resolve, reject } = Promise.withResolvers<ToolResult>();
  let started = false;
  return {
    next: () => {
      started = true;
      return promise;
    },
    get started() {
      return started;
    },
    finish: () => resolve(text("ran")),
    fail: (err: unknown) => reject(err),
  };
}

function refusal(result: ToolResult): string | undefined {
  return result.isError ? (result.content[0] as { text: string }).text : undefined;
}

Deno.test("concurrencyLimit() refuses the call past the limit at once, without running it", async () => {
  const limit = concurrencyLimit({ tools: { query: 2 } });
  const [a, b, c] = [held(), held(), held()];
  const first = limit(ctx("query"), a.next);
  const second = limit(ctx("query"), b.next);
  const third = await limit(ctx("query"), c.next);
  assert.equal(
    refusal(third),
    'Too many concurrent calls of tool "query": at most 2 at once; retry when one finishes',
  );
  assert.equal(c.started, false, "the refused call's handler did not start");
  a.finish();
  b.finish();
  assert.equal(refusal(await first), undefined);
  assert.equal(refusal(await second), undefined);
});

Deno.test("concurrencyLimit() frees the slot when a call throws, so a failing handler cannot lock the tool", async () => {
  const limit = concurrencyLimit({ tools: { query: 1 } });
  for (let i = 0; i < 3; i++) {
    const call = held();
    const running = limit(ctx("query"), call.next);
    assert.match(refusal(await limit(ctx("query"), held().next)) ?? "", /at most 1 at once/);
    call.fail(new DOMException("deadline", "TimeoutError"));
    await assert.rejects(Promise.resolve(running), { name: "TimeoutError" });
  }
  const after = held();
  const running = limit(ctx("query"), after.next);
  assert.equal(after.started, true);
  after.finish();
  assert.equal(refusal(await running), undefined);
});

Deno.test("concurrencyLimit() keeps the slot of a call cancelled while its handler runs on, until that handler ends", async () => {
  const limit = concurrencyLimit({ tools: { query: 1 } });
  const handler = Promise.withResolvers<void>();
  const call = held();
  const running = limit(ctx("query", false, handler.promise), call.next);
  // next() rejects at the cancellation, while the handler (which ignores its signal) still runs.
  call.fail(new DOMException("cancelled", "AbortError"));
  await assert.rejects(Promise.resolve(running), /cancelled/);
  assert.match(refusal(await limit(ctx("query"), held().next)) ?? "", /at most 1 at once/);
  handler.resolve();
  await handler.promise;
  const next = held();
  const served = limit(ctx("query"), next.next);
  assert.equal(next.started, true, "the slot came back when the handler ended");
  next.finish();
  assert.equal(refusal(await served), undefined);
});

Deno.test("concurrencyLimit() in a server: a cancelled call whose handler ignores its signal holds its slot until the handler ends", async () => {
  const server = new Server({ name: "t" });
  const gate = Promise.withResolvers<void>();
  const ended = Promise.withResolvers<void>();
  addTool(
    server,
    { name: "query", description: "Ignores its signal", inputSchema: schema(), annotations: RW },
    async () => {
      await gate.promise;
      ended.resolve();
      return text("late");
    },
  );
  const s = serveRaw(server, { middleware: [concurrencyLimit({ tools: { query: 1 } })] });
  await s.send(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    }),
  );
  await s.next();
  const call = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "query" } });
  await s.send(call(1));
  await s.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
  // Answered by a ping's round trip: the cancelled call's handler still runs, so the next call is refused.
  await s.send(JSON.stringify({ jsonrpc: "2.0", id: "ping", method: "ping" }));
  assert.equal((await s.next()).id, "ping");
  await s.send(call(2));
  const refused = await s.next();
  assert.equal(refused.id, 2);
  assert.match(JSON.stringify(refused.result), /Too many concurrent calls of tool \\"query\\": at most 1 at once/);
  gate.resolve();
  await ended.promise;
  await s.send(JSON.stringify({ jsonrpc: "2.0", id: "ping2", method: "ping" }));
  assert.equal((await s.next()).id, "ping2");
  await s.send(call(3));
  const served = await s.next();
  assert.equal(served.id, 3);
  assert.equal(JSON.stringify(served.result), JSON.stringify(text("late")));
  await s.close();
});

Deno.test("concurrencyLimit() in a server: a call paused to ask its client (2026-07-28) gives its slot back", async () => {
  const server = new Server({ name: "t" });
  addTool(
    server,
    { name: "ask", description: "Asks, then answers", inputSchema: schema(), annotations: RW },
    async (req) => text((await req.elicit({ message: "Go?", requestedSchema: schema() })).action),
  );
  const s = serveRaw(server, { middleware: [concurrencyLimit({ tools: { ask: 1 } })] });
  const meta = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const call = (id: number, more: Record<string, unknown> = {}) =>
    JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask", _meta: meta, ...more } });
  // Its handler is parked for good on the question (the retry is a new call): before, each pause kept its slot
  // forever, and the second call of the tool was refused for the rest of the server's life.
  let state: unknown;
  for (let id = 1; id <= 3; id++) {
    await s.send(call(id));
    const paused = (await s.next()).result as Record<string, unknown>;
    assert.equal(paused.resultType, "input_required", JSON.stringify(paused));
    state = paused.requestState;
  }
  await s.send(call(4, { requestState: state, inputResponses: { "elicitation-1": { action: "accept" } } }));
  assert.deepEqual(((await s.next()).result as { content: unknown }).content, [{ type: "text", text: "accept" }]);
  await s.close();
});

Deno.test("concurrencyLimit() counts each tool apart, and a refusal takes no slot", async () => {
  const limit = concurrencyLimit({ default: 1 });
  const a = held();
  const runningA = limit(ctx("a"), a.next);
  for (let i = 0; i < 3; i++) assert.ok(refusal(await limit(ctx("a"), held().next)));
  const b = held();
  const runningB = limit(ctx("b"), b.next);
  assert.equal(b.started, true, "tool b has its own slot");
  a.finish();
  b.finish();
  await Promise.all([runningA, runningB]);
  const again = held();
  const runningAgain = limit(ctx("a"), again.next);
  assert.equal(again.started, true, "the three refusals did not keep a's slot");
  again.finish();
  await runningAgain;
});

Deno.test("concurrencyLimit() lets probes past a full limit: they run nothing", async () => {
  const limit = concurrencyLimit({ tools: { query: 1 } });
  const a = held();
  const running = limit(ctx("query"), a.next);
  assert.equal(refusal(await limit(ctx("query", true), () => Promise.resolve(text("patterns")))), undefined);
  a.finish();
  await running;
});

Deno.test("concurrencyLimit() applies only to the tools it limits, every tool once it has a default", () => {
  const named = concurrencyLimit({ tools: { query: 1 } });
  assert.equal(named.appliesTo!(tool("query"), false), true);
  assert.equal(named.appliesTo!(tool("other"), false), false);
  assert.equal(concurrencyLimit({ default: 3 }).appliesTo!(tool("other"), false), true);
});

Deno.test("concurrencyLimit() refuses a limit that is not a positive integer when it is built", () => {
  for (const n of [0, -1, 1.5, NaN, Infinity]) {
    assert.throws(
      () => concurrencyLimit({ tools: { query: n } }),
      (err: unknown) =>
        err instanceof RangeError &&
        err.message === `Cannot build the concurrency limit of "query": it must be a positive integer, got ${n}`,
    );
  }
  assert.throws(() => concurrencyLimit({ default: 0 }), /concurrency limit of "default"/);
});
