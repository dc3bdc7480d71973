import assert from "node:assert/strict";
import { connectInMemory } from "@forge/toolkit/testing";
import { compileInputValidator } from "./input_validator.ts";
import type { Middleware } from "./middleware.ts";
import { registerPatternTool } from "./pattern_tool.ts";
import { text } from "./result.ts";
import { addTool, Server } from "./server.ts";
import {
  arrayProp,
  boolProp,
  enumProp,
  intProp,
  numProp,
  objectProp,
  type ObjectSchema,
  schema,
  stringMapProp,
  strProp,
} from "./schema.ts";

const fail = (problem: string) => new TypeError(`Cannot register tool "t": ${problem}`);
const compile = (s: ObjectSchema) => compileInputValidator(s, fail);

const search = compile(schema({
  path: strProp("Path", { minLength: 1, maxLength: 8, pattern: "^[a-z./]+$" }),
  limit: intProp("Limit", { minimum: 1, maximum: 100 }),
  ratio: numProp("Ratio", { exclusiveMinimum: 0, exclusiveMaximum: 1 }),
  order: enumProp(["asc", "desc"], "Order"),
  recurse: boolProp("Recurse"),
  tags: arrayProp(strProp("Tag", { maxLength: 3 }), "Tags", { minItems: 1, maxItems: 2 }),
  range: objectProp({ from: intProp("From"), to: intProp("To") }, ["from"], "Range"),
  headers: stringMapProp("Headers"),
}, ["path", "order"]));

Deno.test("the input validator accepts arguments that keep every rule", () => {
  assert.equal(search({ path: "a/b.md", order: "asc" }), undefined);
  assert.equal(
    search({
      path: "a",
      order: "desc",
      limit: 100,
      ratio: 0.5,
      recurse: false,
      tags: ["x", "yz"],
      range: { from: 1, to: 2 },
      headers: { accept: "text/plain" },
    }),
    undefined,
  );
});

Deno.test("the input validator names the argument and the rule of every keyword the helpers emit", () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ order: "asc" }, 'Invalid argument "path": is missing (required)'],
    [{ path: 7, order: "asc" }, 'Invalid argument "path": must be a string (type), got the number 7'],
    [{ path: "", order: "asc" }, 'Invalid argument "path": must be at least 1 characters long (minLength), got 0'],
    [
      { path: "abcdefghi", order: "asc" },
      'Invalid argument "path": must be at most 8 characters long (maxLength), got 9',
    ],
    [{ path: "A", order: "asc" }, 'Invalid argument "path": must match the pattern "^[a-z./]+$" (pattern)'],
    [{ path: "a", order: "up" }, 'Invalid argument "order": must be one of "asc", "desc" (enum), got the string "up"'],
    [
      { path: "a", order: "asc", limit: 1.5 },
      'Invalid argument "limit": must be an integer (type), got the number 1.5',
    ],
    [{ path: "a", order: "asc", limit: 0 }, 'Invalid argument "limit": must be at least 1 (minimum), got 0'],
    [{ path: "a", order: "asc", limit: 101 }, 'Invalid argument "limit": must be at most 100 (maximum), got 101'],
    [
      { path: "a", order: "asc", ratio: 0 },
      'Invalid argument "ratio": must be greater than 0 (exclusiveMinimum), got 0',
    ],
    [{ path: "a", order: "asc", ratio: 1 }, 'Invalid argument "ratio": must be less than 1 (exclusiveMaximum), got 1'],
    [
      { path: "a", order: "asc", recurse: "yes" },
      'Invalid argument "recurse": must be a boolean (type), got the string "yes"',
    ],
    [{ path: "a", order: "asc", tags: "x" }, 'Invalid argument "tags": must be an array (type), got the string "x"'],
    [{ path: "a", order: "asc", tags: [] }, 'Invalid argument "tags": must hold at least 1 items (minItems), got 0'],
    [
      { path: "a", order: "asc", tags: ["a", "b", "c"] },
      'Invalid argument "tags": must hold at most 2 items (maxItems), got 3',
    ],
    [
      { path: "a", order: "asc", tags: ["a", 2] },
      'Invalid argument "tags[1]": must be a string (type), got the number 2',
    ],
    [
      { path: "a", order: "asc", tags: ["long"] },
      'Invalid argument "tags[0]": must be at most 3 characters long (maxLength), got 4',
    ],
    [{ path: "a", order: "asc", range: [] }, 'Invalid argument "range": must be an object (type), got an array'],
    [{ path: "a", order: "asc", range: { to: 1 } }, 'Invalid argument "range.from": is missing (required)'],
    [
      { path: "a", order: "asc", range: { from: "1" } },
      'Invalid argument "range.from": must be an integer (type), got the string "1"',
    ],
    [
      { path: "a", order: "asc", headers: { "X-A": 1 } },
      'Invalid argument "headers.X-A": must be a string (type), got the number 1',
    ],
  ];
  for (const [args, message] of cases) assert.equal(search(args), message, JSON.stringify(args));
});

Deno.test("the input validator refuses an unknown argument and lists the ones the tool takes", () => {
  assert.match(
    search({ path: "a", order: "asc", pth: "x" })!,
    /^Invalid argument "pth": is not an argument of this tool \(additionalProperties\); the tool's arguments are "path", "limit"/,
  );
  assert.match(
    search({ path: "a", order: "asc", range: { from: 1, step: 2 } })!,
    /^Invalid argument "range.step": is not an allowed property \(additionalProperties\); its properties are "from", "to"$/,
  );
  assert.equal(
    compile(schema())({ x: 1 }),
    'Invalid argument "x": is not an argument of this tool (additionalProperties); it takes none',
  );
  assert.equal(compile(schema({}, [], { additionalProperties: true }))({ x: 1 }), undefined);
});

Deno.test("the input validator words a form's failures as its fields when told it checks a form", () => {
  const form = compileInputValidator(schema({ name: strProp("Name") }, ["name"]), fail, { checking: "form" });
  assert.equal(
    form({ name: "Ada", x: 1 }),
    'Invalid field "x": is not a field of the requested form (additionalProperties); the form\'s fields are "name"',
  );
  assert.equal(form({}), 'Invalid field "name": is missing (required)');
  assert.equal(
    compileInputValidator(schema(), fail, { checking: "form" })({ x: 1 }),
    'Invalid field "x": is not a field of the requested form (additionalProperties); it has none',
  );
});

Deno.test("the input validator tells a model that sent null for an optional argument to leave it out", () => {
  assert.equal(
    search({ path: "a", order: "asc", limit: null }),
    'Invalid argument "limit": must be an integer (type), got null; to leave it out, omit it rather than sending null',
  );
  assert.equal(search({ path: null, order: "asc" }), 'Invalid argument "path": must be a string (type), got null');
});

Deno.test("the input validator counts string length in code points, as JSON Schema does, not UTF-16 units", () => {
  const check = compile(schema({ s: strProp("S", { minLength: 2, maxLength: 2 }) }, ["s"]));
  assert.equal(check({ s: "😀😀" }), undefined, "two code points, four UTF-16 units");
  assert.match(check({ s: "😀" })!, /at least 2 characters long \(minLength\), got 1/);
  assert.match(check({ s: "😀😀😀" })!, /at most 2 characters long \(maxLength\), got 3/);
  assert.equal(check({ s: "\ud800\ud800" }), undefined, "a lone surrogate counts as one");
  const dot = compile(schema({ s: strProp("S", { pattern: "^.$" }) }, ["s"]));
  assert.equal(dot({ s: "😀" }), undefined, "the pattern matches by code point");
});

Deno.test("the input validator runs the author's pattern only on strings within maxLength", () => {
  // Catastrophic backtracking on a long input would take minutes; the length check refuses it first.
  const check = compile(schema({ s: strProp("S", { maxLength: 20, pattern: "^(a+)+$" }) }, ["s"]));
  const started = performance.now();
  assert.match(check({ s: `${"a".repeat(100_000)}!` })!, /maxLength/);
  assert.ok(performance.now() - started < 1_000);
});

Deno.test("the input validator enforces type arrays, const, anyOf, oneOf and allOf written by hand", () => {
  const check = compile({
    type: "object",
    properties: {
      id: { type: ["string", "integer"] },
      kind: { const: "file" },
      size: { anyOf: [{ type: "integer", minimum: 0 }, { type: "string", pattern: "^[0-9]+[KM]$" }] },
      one: { oneOf: [{ type: "integer" }, { type: "number" }] },
      both: { allOf: [{ type: "string" }, { maxLength: 1 }] },
    },
    additionalProperties: false,
  });
  assert.equal(check({ id: "a", kind: "file", size: "5K", one: 1.5, both: "x" }), undefined);
  assert.match(check({ id: 1.5 })!, /"id": must be a string or an integer \(type\)/);
  assert.match(check({ kind: "dir" })!, /"kind": must be "file" \(const\)/);
  assert.match(check({ size: -1 })!, /"size": matches none of the 2 allowed forms \(anyOf\)/);
  assert.match(check({ one: 1 })!, /"one": must match exactly one of 2 forms \(oneOf\), matches 2/);
  assert.match(check({ both: "xy" })!, /"both": must be at most 1 characters long/);
});

Deno.test("the input validator never echoes more than a short quote of a hostile value or key", () => {
  const huge = "x".repeat(1_000_000);
  const byValue = search({ path: "a", order: huge })!;
  const byKey = search({ path: "a", order: "asc", [huge]: 1 })!;
  assert.ok(byValue.length < 300 && byKey.length < 600, `${byValue.length} ${byKey.length}`);
});

Deno.test("the input validator refuses at registration a schema it could not enforce, and says where", () => {
  const refused: [ObjectSchema, RegExp][] = [
    [
      schema({ s: strProp("S", { pattern: "(" }) }),
      /inputSchema\/properties\/s\/pattern is not a valid regular expression/,
    ],
    [schema({ s: strProp("S", { maxLength: -1 }) }), /maxLength must be a non-negative integer/],
    [schema({ n: intProp("N", { minimum: "1" as never }) }), /minimum must be a finite number/],
    [{ type: "object", properties: { n: { type: "int" as never } } }, /type must name JSON types/],
    [
      { type: "object", properties: { n: { $ref: "#/x" } } },
      /inputSchema\/properties\/n\/\$ref "#\/x" points at nothing in this schema/,
    ],
    [
      { type: "object", properties: { n: { $ref: "https://example.com/n.json" } } },
      /\$ref "https:\/\/example.com\/n.json" refers to a schema outside this one .*remote references are refused, never fetched/,
    ],
    [
      { type: "object", properties: {}, $schema: "http://json-schema.org/draft-07/schema#" },
      /inputSchema\/\$schema is "http:\/\/json-schema.org\/draft-07\/schema#": only JSON Schema 2020-12 is validated/,
    ],
  ];
  for (const [s, message] of refused) {
    assert.throws(() => compile(s), (err: unknown) => err instanceof TypeError && message.test(err.message));
  }
});

Deno.test("the input validator keeps to the schema's depth, whatever the value's", () => {
  let deep: unknown = {};
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const shallow = compile(schema({ v: { type: "object", properties: { a: { type: "object" } } } }, ["v"]));
  assert.equal(shallow({ v: deep }), undefined);
  assert.match(shallow({ v: { a: [] } })!, /"v.a": must be an object/);
});

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const WRITE = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };

Deno.test("a call with invalid arguments gets an isError result and never reaches patterns or handler", async () => {
  const seen: string[] = [];
  const audit: Middleware = async (ctx, next) => {
    const result = await next();
    seen.push(`${ctx.tool.name}:${result.isError === true}`);
    return result;
  };
  const server = new Server({ name: "v" });
  let ran = 0;
  addTool(server, {
    name: "head",
    description: "First lines",
    inputSchema: schema({ path: strProp("Path"), lines: intProp("Lines", { minimum: 1 }) }, ["path"]),
    annotations: RO,
  }, (req) => (ran++, text(`${req.arguments.path}:${req.arguments.lines ?? 10}`)));
  registerPatternTool(
    server,
    {
      name: "put",
      description: "Writes",
      inputSchema: schema({ path: strProp("Path") }, ["path"]),
      annotations: WRITE,
    },
    (args) => (ran++, { patterns: [`write:${args.path}`] }),
    () => (ran++, text("written")),
  );
  const plain = await connectInMemory(server);
  const bad = await plain.client.callTool({ name: "head", arguments: { path: "a", lines: 0 } });
  assert.equal(bad.isError, true);
  assert.deepEqual(bad.content, [{
    type: "text",
    text: 'Invalid argument "lines": must be at least 1 (minimum), got 0',
  }]);
  const good = await plain.client.callTool({ name: "head", arguments: { path: "a" } });
  assert.deepEqual(good.content, [{ type: "text", text: "a:10" }]);
  assert.equal(ran, 1);
  await plain.close();

  const audited = await connectInMemory(server, { serve: { middleware: [audit] } });
  const probe = await audited.client.callTool({
    name: "put",
    arguments: { path: 1 },
    _meta: { "forge.permission_patterns": true },
  });
  assert.equal(probe.isError, true);
  assert.match(String((probe.content as { text: string }[])[0].text), /Invalid argument "path": must be a string/);
  assert.equal(ran, 1, "neither the patterns nor the handler ran");
  assert.deepEqual(seen, ["put:true"], "the middleware saw the refused call");
  await audited.close();
});

Deno.test("an open schema without properties checks only that the arguments are an object", () => {
  const open = compile(schema({}, [], { additionalProperties: true }));
  assert.equal(open({ anything: [1, { deep: true }], at: "all" }), undefined);
  assert.match(open([] as never)!, /^Invalid arguments: must be an object \(type\), got an array$/);
});
