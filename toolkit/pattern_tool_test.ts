import assert from "node:assert/strict";
import { addTool, schema, Server, text, type Tool } from "@forge/toolkit";
// Loaded as run() loads it before register: the serving half provides the schema engine the registry compiles with.
import "@forge/toolkit/stdio";
import { connectInMemory, PROBE_META_KEY } from "@forge/toolkit/testing";
import { registerPatternTool } from "./pattern_tool.ts";
import { registryOf } from "./registry.ts";

const RW = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
const write: Tool = { name: "write", description: "Writes", inputSchema: schema(), annotations: RW };
const patterns = () => ({ patterns: ["write:x"] });
const handler = () => text("done");
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const textOf = (result: { content: unknown }) => (result.content as { text: string }[])[0].text;

Deno.test("registerPatternTool() registers the tool with its patterns and no confirmation by default", () => {
  const server = new Server({ name: "s" });
  registerPatternTool(server, write, patterns, handler);
  const entry = registryOf(server).tools.get("write")!;
  assert.equal(entry.patterns, patterns);
  assert.equal(entry.handler, handler);
  assert.equal(entry.confirm, undefined);
});

Deno.test("registerPatternTool() keeps a confirmation, refusing by default when the client cannot ask", () => {
  const server = new Server({ name: "s" });
  const ask = (args: { path?: string }) => `Write ${args.path}?`;
  registerPatternTool(server, write, patterns, handler, { confirm: ask });
  registerPatternTool(server, { ...write, name: "fixed" }, patterns, handler, {
    confirm: "Sure?",
    whenUnconfirmable: "run",
  });
  const tools = registryOf(server).tools;
  assert.deepEqual(tools.get("write")!.confirm, { message: ask, whenUnavailable: "refuse" });
  assert.deepEqual(tools.get("fixed")!.confirm, { message: "Sure?", whenUnavailable: "run" });
});

Deno.test("registerPatternTool() refuses patterns that are not a function, naming the tool", () => {
  const server = new Server({ name: "s" });
  for (const bad of [undefined, null, ["write:x"], { patterns: [] }]) {
    assert.throws(
      () => registerPatternTool(server, write, bad as never, handler),
      { name: "TypeError", message: 'Cannot register tool "write": patterns must be a function' },
    );
  }
  assert.equal(registryOf(server).tools.size, 0);
});

Deno.test("registerPatternTool() refuses a confirm or whenUnconfirmable of the wrong kind, registering nothing", () => {
  const server = new Server({ name: "s" });
  for (const confirm of [true, 1, ["Sure?"], null]) {
    assert.throws(
      () => registerPatternTool(server, write, patterns, handler, { confirm: confirm as never }),
      { name: "TypeError", message: 'Cannot register tool "write": confirm must be a string or a function' },
    );
  }
  for (const whenUnconfirmable of ["allow", "", "RUN"]) {
    assert.throws(
      () => registerPatternTool(server, write, patterns, handler, { whenUnconfirmable: whenUnconfirmable as never }),
      { name: "TypeError", message: 'Cannot register tool "write": whenUnconfirmable must be "run" or "refuse"' },
    );
  }
  assert.equal(registryOf(server).tools.size, 0);
});

Deno.test("registerPatternTool() quotes and cuts a hostile tool name in its refusal", () => {
  const server = new Server({ name: "s" });
  const name = `evil\n${"x".repeat(10_000)}`;
  assert.throws(() => registerPatternTool(server, { ...write, name }, "nope" as never, handler), (err: unknown) => {
    assert.ok(err instanceof TypeError);
    assert.ok(err.message.length < 300, `${err.message.length} characters`);
    assert.ok(!err.message.includes("\n"));
    return true;
  });
});

/**
 * A pattern tool whose pattern function ignores its signal (it only records that it fired) and settles only when the
 * test calls `release()`: only the call's own race can answer the call before that.
 */
function waitingPatterns() {
  const server = new Server({ name: "s" });
  const started = Promise.withResolvers<void>();
  const stopped = Promise.withResolvers<unknown>();
  const gate = Promise.withResolvers<{ patterns: string[] }>();
  let handled = 0;
  registerPatternTool(server, write, (_args, signal) => {
    started.resolve();
    // The toolkit always gives the signal.
    signal!.addEventListener("abort", () => stopped.resolve(signal!.reason), { once: true });
    return gate.promise;
  }, () => (handled++, text("done")));
  addTool(server, { ...write, name: "quick", annotations: RO }, () => text("quick"));
  return {
    server,
    started: started.promise,
    stopped: stopped.promise,
    handled: () => handled,
    release: () => gate.resolve({ patterns: ["write:x"] }),
  };
}

Deno.test("a pattern function is bounded by the call's deadline, probe or not, and its signal fires so it can stop its work", async () => {
  for (const probe of [false, true]) {
    const { server, stopped, handled, release } = waitingPatterns();
    const session = await connectInMemory(server, { serve: { timeoutMs: 50 } });
    const _meta = probe ? { [PROBE_META_KEY]: true } : undefined;
    await assert.rejects(
      // The client's own timeout is only an upper bound: the server's deadline answers first, while the pattern
      // function has not settled.
      session.client.callTool({ name: "write", arguments: {}, _meta }, undefined, { timeout: 10_000 }),
      /-32001: Tool call timed out after 50 ms/,
    );
    assert.ok(await stopped, "the pattern function's signal fired");
    release();
    // A round trip after the pattern function settled: a handler run by it would have run by then.
    assert.equal(textOf(await session.client.callTool({ name: "quick", arguments: {} })), "quick");
    assert.equal(handled(), 0, "nothing ran");
    await session.close();
  }
});

Deno.test("a cancelled call's pattern function sees its signal fire, and the handler never runs", async () => {
  const { server, started, stopped, handled, release } = waitingPatterns();
  const session = await connectInMemory(server);
  const controller = new AbortController();
  const call = session.client.callTool({ name: "write", arguments: {} }, undefined, { signal: controller.signal });
  await started;
  controller.abort("the user changed their mind");
  await assert.rejects(call);
  assert.ok(await stopped, "the pattern function's signal fired");
  // Its patterns arrive after the cancellation: the handler must still not run.
  release();
  assert.equal(textOf(await session.client.callTool({ name: "quick", arguments: {} })), "quick");
  assert.equal(handled(), 0);
  await session.close();
});
