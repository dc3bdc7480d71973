import assert from "node:assert/strict";
import { schema, Server, text, type Tool } from "@forge/toolkit";
// Loaded as run() loads it before register: the serving half provides the schema engine the registry compiles with.
import "@forge/toolkit/stdio";
import { attachRegistry, registerTool, Registry, registryOf } from "./registry.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const base: Tool = { name: "ok", description: "d", inputSchema: schema(), annotations: RO };
const handler = () => text("x");

/** The refusal registerTool() gives `tool`, or undefined when it registers it. */
function refusal(tool: unknown, h: unknown = handler): string | undefined {
  try {
    registerTool(new Server({ name: "s" }), tool as Tool, h as typeof handler, undefined);
    return undefined;
  } catch (err) {
    assert.ok(err instanceof TypeError, String(err));
    return err.message;
  }
}

Deno.test("Registry.list() and listJson() keep their array and text until a tool is added, and onChange() stops when told", () => {
  const registry = new Registry();
  const changes: string[] = [];
  const stop = registry.onChange(() => changes.push("a"));
  registry.onChange(() => changes.push("b"));
  const entry = (name: string) => ({ tool: { ...base, name }, wire: { name } }) as never;
  registry.add(entry("one"));
  const first = registry.list();
  assert.equal(registry.list(), first, "the same array while nothing changed");
  stop();
  registry.add(entry("two"));
  assert.notEqual(registry.list(), first);
  assert.deepEqual(registry.list(), [{ name: "one" }, { name: "two" }]);
  assert.equal(registry.listJson(), '[{"name":"one"},{"name":"two"}]');
  registry.add(entry("three"));
  assert.equal(registry.listJson(), '[{"name":"one"},{"name":"two"},{"name":"three"}]', "made again after a change");
  assert.deepEqual(changes, ["a", "b", "b", "b"]);
});

Deno.test("registryOf() refuses an object no Server was made from, and attachRegistry() gives each its own", () => {
  assert.throws(() => registryOf({}), {
    name: "TypeError",
    message: "Cannot use this server: it was not created by run() or new Server()",
  });
  const a = {};
  const b = {};
  const registry = attachRegistry(a);
  assert.equal(registryOf(a), registry);
  attachRegistry(b);
  assert.notEqual(registryOf(b), registry);
});

Deno.test("registerTool() refuses an empty description and a handler that is not a function", () => {
  assert.equal(refusal({ ...base, description: " \n" }), 'Cannot register tool "ok": the description is empty');
  assert.equal(refusal({ ...base, description: 42 }), 'Cannot register tool "ok": the description is empty');
  assert.equal(refusal(base, "text"), 'Cannot register tool "ok": the handler is not a function');
  assert.equal(refusal(base), undefined);
});

Deno.test("registerTool() takes a timeoutMs only as a positive finite number of milliseconds", () => {
  for (const timeoutMs of [0, -1, NaN, Infinity, "100"]) {
    assert.equal(
      refusal({ ...base, timeoutMs }),
      'Cannot register tool "ok": timeoutMs must be a positive number of milliseconds',
      String(timeoutMs),
    );
  }
  assert.equal(refusal({ ...base, timeoutMs: 0.5 }), undefined);
});

Deno.test("registerTool() takes a maxResultBytes only as a positive finite number or a function", () => {
  for (const maxResultBytes of [0, -1, NaN, Infinity, "100", null]) {
    assert.equal(
      refusal({ ...base, maxResultBytes }),
      'Cannot register tool "ok": maxResultBytes must be a positive number of bytes or a function returning one',
      String(maxResultBytes),
    );
  }
  assert.equal(refusal({ ...base, maxResultBytes: 1024 }), undefined);
  assert.equal(refusal({ ...base, maxResultBytes: () => 1024 }), undefined);
});

Deno.test("registerTool() takes task as a boolean or { ttlMs, required, askFirst } of the right kinds only", () => {
  for (const task of [true, false, {}, { ttlMs: 1 }, { required: true, askFirst: false }]) {
    assert.equal(refusal({ ...base, task }), undefined, JSON.stringify(task));
  }
  for (
    const task of [null, "yes", 1, { ttlMs: 0 }, { ttlMs: 1.5 }, { ttlMs: 2 ** 53 }, { required: "no" }, {
      askFirst: 1,
    }]
  ) {
    assert.match(refusal({ ...base, task }) ?? "", /: task must be true, false or \{ ttlMs, required, askFirst \}/);
  }
});

Deno.test("registerTool() takes assertFormats only as true or false", () => {
  assert.equal(
    refusal({ ...base, assertFormats: "yes" }),
    'Cannot register tool "ok": assertFormats must be true or false',
  );
  assert.equal(refusal({ ...base, assertFormats: true }), undefined);
});

Deno.test("registerTool() refuses a definition that cannot be sent as JSON at registration, not mid-call", () => {
  assert.throws(
    () => registerTool(new Server({ name: "s" }), { ...base, _meta: { n: 1n } }, handler, undefined),
    (err: Error) =>
      err instanceof TypeError &&
      /^Cannot register tool "ok": its definition cannot be sent as JSON \(.*BigInt/.test(err.message),
  );
});

Deno.test("registerTool() sends only the fields a client reads, in a fixed order, leaving out those not given", () => {
  const server = new Server({ name: "s" });
  const tool = { ...base, title: "T", timeoutMs: 5, task: true, assertFormats: true, _meta: { k: 1 } } as Tool;
  registerTool(server, tool, handler, undefined);
  registerTool(server, { ...base, name: "bare" }, handler, undefined);
  const [full, bare] = registryOf(server).list();
  assert.deepEqual(Object.keys(full), ["name", "title", "description", "inputSchema", "annotations", "_meta"]);
  assert.deepEqual(Object.keys(bare), ["name", "description", "inputSchema", "annotations"]);
});

Deno.test("registerTool() adds nothing and tells no listener when it refuses a definition", () => {
  const server = new Server({ name: "s" });
  const registry = registryOf(server);
  let changes = 0;
  registry.onChange(() => changes++);
  assert.throws(() => registerTool(server, { ...base, timeoutMs: -1 }, handler, undefined));
  assert.equal(registry.tools.size, 0);
  assert.equal(changes, 0);
  registerTool(server, base, handler, undefined);
  assert.equal(changes, 1);
});
