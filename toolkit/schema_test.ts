import assert from "node:assert/strict";
import {
  addTool,
  arrayProp,
  boolProp,
  enumProp,
  type Infer,
  intProp,
  numProp,
  objectProp,
  registerPatternTool,
  requireString,
  schema,
  Server,
  stringMapProp,
  strProp,
  text,
  type Tool,
  type ToolHandler,
} from "@forge/toolkit";
import { connectInMemory } from "@forge/toolkit/testing";

Deno.test("schema() always has properties as an object and omits an empty required", () => {
  const empty = schema();
  assert.deepEqual(empty, { type: "object", properties: {}, additionalProperties: false });
  assert.ok(!("required" in empty));
  assert.notEqual(JSON.parse(JSON.stringify(empty)).properties, null);
});

Deno.test("schema() lists required properties and refuses unknown ones", () => {
  const s = schema({ a: strProp("A"), b: intProp("B") }, ["a"]);
  assert.deepEqual(s.required, ["a"]);
  // @ts-expect-error: TypeScript refuses an unknown name already; plain JavaScript gets the RangeError.
  assert.throws(() => schema({ a: strProp("A") }, ["zzz"]), /Cannot require property "zzz": it is not defined/);
});

Deno.test("schema() can allow additional properties", () => {
  assert.equal(schema({}, [], { additionalProperties: true }).additionalProperties, true);
});

Deno.test("property helpers produce JSON Schema 2020-12 keywords with descriptions", () => {
  assert.deepEqual(strProp("S", { maxLength: 3 }), { type: "string", description: "S", maxLength: 3 });
  assert.deepEqual(intProp("I", { minimum: 0 }), { type: "integer", description: "I", minimum: 0 });
  assert.deepEqual(numProp("N"), { type: "number", description: "N" });
  assert.deepEqual(boolProp("B"), { type: "boolean", description: "B" });
  assert.deepEqual(enumProp(["a", "b"], "E"), { type: "string", description: "E", enum: ["a", "b"] });
  assert.throws(() => enumProp([], "E"), RangeError);
  assert.deepEqual(arrayProp(intProp("x"), "A"), {
    type: "array",
    description: "A",
    items: { type: "integer", description: "x" },
  });
  assert.deepEqual(objectProp({ x: intProp("x") }, ["x"], "O"), {
    type: "object",
    properties: { x: { type: "integer", description: "x" } },
    required: ["x"],
    additionalProperties: false,
    description: "O",
  });
  assert.deepEqual(stringMapProp("M"), { type: "object", description: "M", additionalProperties: { type: "string" } });
});

// Compile-time checks: `deno test` type-checks this file, so a wrong type fails the run.
type Equal<A, B> = (<X>() => X extends A ? 1 : 2) extends (<X>() => X extends B ? 1 : 2) ? true : false;
function expectType<T extends true>(_proof: T): void {}

Deno.test("schema() carries the arguments' types: required, optional, enum, array, nested object", () => {
  const input = schema({
    path: strProp("Path"),
    limit: intProp("Limit"),
    ratio: numProp("Ratio"),
    order: enumProp(["asc", "desc"], "Order"),
    recurse: boolProp("Recurse"),
    tags: arrayProp(strProp("Tag"), "Tags"),
    range: objectProp({ from: intProp("From"), to: intProp("To") }, ["from"], "Range"),
    headers: stringMapProp("Headers"),
    raw: { type: "string" },
  }, ["path", "order"]);
  type Args = Infer<typeof input>;
  expectType<Equal<Args["path"], string>>(true);
  expectType<Equal<Args["limit"], number | undefined>>(true);
  expectType<Equal<Args["ratio"], number | undefined>>(true);
  expectType<Equal<Args["order"], "asc" | "desc">>(true);
  expectType<Equal<Args["recurse"], boolean | undefined>>(true);
  expectType<Equal<Args["tags"], string[] | undefined>>(true);
  expectType<Equal<Args["range"], { from: number; to?: number | undefined } | undefined>>(true);
  expectType<Equal<Args["headers"], Record<string, string> | undefined>>(true);
  expectType<Equal<Args["raw"], unknown>>(true);
  const none = schema();
  expectType<Equal<keyof Infer<typeof none>, never>>(true);
  // Runtime shape is unchanged by the types.
  assert.deepEqual(input.required, ["path", "order"]);
  assert.ok(!("~value" in input));
});

Deno.test("addTool() and registerPatternTool() hand typed arguments to the handler and patterns", async () => {
  const server = new Server({ name: "typed" });
  const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  addTool(server, {
    name: "head",
    description: "First lines of a file",
    inputSchema: schema({ path: strProp("Path"), lines: intProp("Lines") }, ["path"]),
    annotations: RO,
  }, (req) => {
    expectType<Equal<typeof req.arguments.path, string>>(true);
    expectType<Equal<typeof req.arguments.lines, number | undefined>>(true);
    // @ts-expect-error: not an argument of this tool
    void req.arguments.other;
    return text(req.arguments.path.toUpperCase());
  });
  registerPatternTool(server, {
    name: "todo_add",
    description: "Adds a todo",
    inputSchema: schema({ title: strProp("Title"), due: strProp("Due date") }, ["title"]),
    annotations: { ...RO, readOnlyHint: false },
  }, (args) => {
    expectType<Equal<typeof args.title, string>>(true);
    return { patterns: [`todo:add:${args.title}`] };
  }, (req) => text(req.arguments.due ?? "no date"));
  // The untyped forms of before keep compiling: Tool, ToolHandler and the argument helpers.
  const legacy: Tool = {
    name: "legacy",
    description: "Old style",
    inputSchema: schema({ name: strProp("Name") }, ["name"]),
    annotations: RO,
  };
  const handler: ToolHandler = (req) => text(requireString(req.arguments, "name"));
  addTool(server, legacy, handler);
  const session = await connectInMemory(server);
  const result = await session.client.callTool({ name: "head", arguments: { path: "a.md" } });
  assert.deepEqual(result.content, [{ type: "text", text: "A.MD" }]);
  await session.close();
  assert.deepEqual(server.toolNames, ["head", "todo_add", "legacy"]);
});

Deno.test("a hand-written 2020-12 schema with $defs and $ref compiles as a tool's schema and types each argument unknown", async () => {
  const server = new Server({ name: "refs" });
  const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  addTool(server, {
    name: "pick",
    description: "Picks a colour",
    inputSchema: {
      type: "object",
      $defs: { colour: { enum: ["red", "green", null, 1, true, { custom: "#fff" }] } },
      properties: {
        colour: { $ref: "#/$defs/colour" },
        list: { type: "array", items: { $ref: "#/$defs/colour" } },
        shade: { enum: ["light", null] },
        note: true,
        legacy: false,
        extra: { type: "array", prefixItems: [{ type: "string" }], items: false },
      },
      required: ["colour"],
      additionalProperties: false,
    },
    annotations: RO,
  }, (req) => {
    expectType<Equal<typeof req.arguments.colour, unknown>>(true);
    expectType<Equal<typeof req.arguments.anything, unknown>>(true);
    return text(JSON.stringify(req.arguments.colour));
  });
  const session = await connectInMemory(server);
  const ok = await session.client.callTool({ name: "pick", arguments: { colour: { custom: "#fff" } } });
  assert.deepEqual(ok.content, [{ type: "text", text: '{"custom":"#fff"}' }]);
  const bad = await session.client.callTool({ name: "pick", arguments: { colour: "red", list: ["blue"] } });
  assert.equal(bad.isError, true);
  assert.match(
    (bad.content as { text: string }[])[0].text,
    /^Invalid argument "list\[0\]": must be one of "red", "green", null/,
  );
  await session.close();
});
