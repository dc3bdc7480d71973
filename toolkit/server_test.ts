import assert from "node:assert/strict";
import { addTool, registerPatternTool, schema, Server, text, type Tool } from "@forge/toolkit";
// Loaded as run() loads it before register: the serving half provides the schema engine addTool compiles with.
import "@forge/toolkit/stdio";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const base: Tool = { name: "ok", description: "d", inputSchema: schema(), annotations: RO };
const handler = () => text("x");

Deno.test("addTool() checks tool names against the spec's 1-128 [A-Za-z0-9_.-] rule", () => {
  const server = new Server({ name: "s" });
  for (const name of ["a", "A.b-c_9", "x".repeat(128)]) addTool(server, { ...base, name }, handler);
  for (const name of ["", "has space", "x".repeat(129), "slash/no", "ünïcode", "comma,no"]) {
    assert.throws(
      () => addTool(server, { ...base, name }, handler),
      /Cannot register tool .*: a name is 1 to 128 characters/,
    );
  }
});

Deno.test("addTool() refuses a duplicate name", () => {
  const server = new Server({ name: "s" });
  addTool(server, base, handler);
  assert.throws(() => addTool(server, base, handler), /already registered/);
});

Deno.test("addTool() makes the author state all four annotation hints", () => {
  const server = new Server({ name: "s" });
  assert.throws(
    () => addTool(server, { ...base, annotations: undefined as never }, handler),
    /annotations must state all four hints, each true or false: readOnlyHint, destructiveHint, idempotentHint, openWorldHint \(no annotations given\)/,
  );
  const { openWorldHint: _, ...three } = RO;
  assert.throws(
    () => addTool(server, { ...base, annotations: three as never }, handler),
    /missing: openWorldHint\); for a read-only local tool: annotations: \{ readOnlyHint: true/,
  );
});

Deno.test("addTool() needs object schemas with properties objects and an outputSchema it can enforce", () => {
  const server = new Server({ name: "s" });
  assert.throws(
    () => addTool(server, { ...base, inputSchema: { type: "object" } as never }, handler),
    /properties must be an object/,
  );
  assert.throws(
    () => addTool(server, { ...base, inputSchema: { type: "string" } as never }, handler),
    /must be an object schema/,
  );
  assert.throws(
    () => addTool(server, { ...base, outputSchema: { type: "object", properties: { a: { $ref: "#/x" } } } }, handler),
    /Cannot register tool "ok": outputSchema\/properties\/a\/\$ref "#\/x" points at nothing in this schema$/,
  );
  assert.throws(
    () => addTool(server, { ...base, assertFormats: "yes" as never }, handler),
    /assertFormats must be true or false/,
  );
  assert.throws(() => addTool(server, { ...base, description: " " }, handler), /the description is empty/);
  assert.throws(() => addTool(server, { ...base, timeoutMs: -1 }, handler), /timeoutMs must be a positive number/);
});

Deno.test("registerPatternTool() refuses a tool that claims to be read-only", () => {
  const server = new Server({ name: "s" });
  assert.throws(
    () => registerPatternTool(server, base, () => ({ patterns: [] }), handler),
    /a pattern tool has side effects, so readOnlyHint must be false/,
  );
});

Deno.test("the definition sent to clients is a copy taken at registration", () => {
  const server = new Server({ name: "s" });
  const tool: Tool = { ...base, inputSchema: schema(), timeoutMs: 5 };
  addTool(server, tool, handler);
  tool.description = "changed later";
  assert.deepEqual(server.toolNames, ["ok"]);
});

Deno.test("new Server() needs a name", () => {
  assert.throws(() => new Server({ name: " " }), /Cannot create a server: the name is empty/);
});

Deno.test("registerPatternTool() refuses an outputSchema: a probe result has no structuredContent", () => {
  const server = new Server({ name: "s" });
  const tool = {
    ...base,
    annotations: { ...RO, readOnlyHint: false },
    outputSchema: schema({ n: { type: "integer" } }),
  };
  assert.throws(
    () => registerPatternTool(server, tool, () => ({ patterns: [] }), handler),
    /cannot declare an outputSchema/,
  );
});
