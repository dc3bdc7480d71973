// test-alone: its test needs an isolate where nothing has loaded the schema engine yet
import assert from "node:assert/strict";
import { addTool, Server, text } from "../mod.ts";
import { registryOf, settleSchemas } from "./registry.ts";
import { schemaEngine } from "./schema_engine.ts";
import type { ObjectSchema } from "./schema.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

Deno.test("a tool registered while serving, whose schema needs the engine not yet loaded, is added once it is", async () => {
  assert.equal(schemaEngine(), undefined, "nothing in this file loaded the engine");
  const server = new Server({ name: "late" });
  const registry = registryOf(server);
  addTool(
    server,
    { name: "plain", description: "d", inputSchema: { type: "object", properties: {} }, annotations: RO },
    () => text("x"),
  );
  // run()'s step after register: nothing needs the engine, so it stays unloaded.
  await settleSchemas(server);
  assert.equal(schemaEngine(), undefined);

  const bounded: ObjectSchema = { type: "object", properties: { s: { type: "string", maxLength: 2 } } };
  const remote: ObjectSchema = { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } };
  const changed = new Promise<void>((resolve) => registry.onChange(resolve));
  addTool(server, { name: "bounded", description: "d", inputSchema: bounded, annotations: RO }, () => text("x"));
  addTool(server, { name: "remote", description: "d", inputSchema: remote, annotations: RO }, () => text("x"));
  // A waiting tool's name is taken: a second tool of it is refused at once, as it is once the first is added, and
  // never takes the place of the first, which addTool accepted.
  for (const inputSchema of [{ type: "object", properties: {} } as const, bounded]) {
    assert.throws(
      () => addTool(server, { name: "bounded", description: "d", inputSchema, annotations: RO }, () => text("y")),
      /Cannot register tool "bounded": a tool with this name is already registered/,
    );
  }
  // Not listed before its schema is compiled: no call can reach a tool whose arguments cannot be checked yet.
  assert.deepEqual([...registry.tools.keys()], ["plain"]);
  await changed;
  assert.notEqual(schemaEngine(), undefined, "the late schema loaded it");
  assert.deepEqual([...registry.tools.keys()], ["plain", "bounded"], "the refused schema was never added");
  const validate = registry.tools.get("bounded")!.validate;
  assert.equal(validate({ s: "ab" }), undefined);
  assert.match(validate({ s: "abc" })!, /Invalid argument "s": must be at most 2 characters long \(maxLength\)/);
});
