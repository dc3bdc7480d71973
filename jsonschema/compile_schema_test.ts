import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";

Deno.test("compileSchema() reports the path from the value down, the keyword and the message of the first failure", () => {
  const check = compileSchema({
    type: "object",
    properties: { range: { type: "object", properties: { from: { type: "integer", maximum: 10 } } } },
  });
  assert.deepEqual(check({ range: { from: 12 } }), {
    path: ["range", "from"],
    keyword: "maximum",
    message: "must be at most 10 (maximum), got 12",
    nullForOptional: false,
  });
  assert.equal(check({ range: { from: 3 } }), undefined);
});

Deno.test("compileSchema() compiles once: a later edit of the schema object changes nothing", () => {
  const schema = { type: "object", properties: { a: { type: "integer" } } };
  const check = compileSchema(schema);
  schema.properties.a.type = "string";
  assert.equal(check({ a: 1 }), undefined);
  // The engine alone (a root $comment: no shortcut takes it), with the name lists it keeps: required, dependentRequired.
  const lists = {
    $comment: "engine only",
    type: "object",
    required: ["a"],
    dependentRequired: { a: ["b"] },
    properties: { a: { type: "integer" } },
  };
  const engine = compileSchema(lists);
  lists.required.push("c");
  lists.dependentRequired.a.push("d");
  assert.equal(engine({ a: 1, b: 2 }), undefined);
});

Deno.test("compileSchema() reports a value nested deeper than the stack allows as a failure, not a crash", () => {
  const check = compileSchema({ $defs: { n: { properties: { a: { $ref: "#/$defs/n" } } } }, $ref: "#/$defs/n" });
  let value: unknown = {};
  for (let i = 0; i < 200_000; i++) value = { a: value };
  assert.deepEqual(check(value), {
    path: [],
    keyword: "depth",
    message: "is nested too deeply to be checked",
    nullForOptional: false,
  });
  let fine: unknown = {};
  for (let i = 0; i < 1_000; i++) fine = { a: fine };
  assert.equal(check(fine), undefined, "the transport's default depth cap (1000) passes");
});

Deno.test("compileSchema() keeps runs apart: the memo and the dynamic scope start empty each call", () => {
  const check = compileSchema({
    $defs: { n: { type: "object", properties: { a: { $ref: "#/$defs/n" } } } },
    $ref: "#/$defs/n",
  });
  const value = { a: { a: {} } };
  assert.equal(check(value), undefined);
  (value.a.a as Record<string, unknown>).a = 1;
  assert.deepEqual(check(value)?.path, ["a", "a", "a"], "the same objects, changed, are checked afresh");
});

Deno.test("true allows everything, false nothing, and {} is true", () => {
  assert.equal(compileSchema(true)({ any: 1 }), undefined);
  assert.equal(compileSchema({})([1]), undefined);
  assert.equal(compileSchema(false)(1)?.message, "is not allowed here (false schema)");
  assert.deepEqual(compileSchema({ properties: { a: false } })({ a: 1 })?.path, ["a"]);
});

Deno.test("$schema may name 2020-12 only: any other dialect is refused rather than read with the wrong rules", () => {
  assert.equal(
    compileSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", type: "null" })(null),
    undefined,
  );
  assert.doesNotThrow(() => compileSchema({ $schema: "https://json-schema.org/draft/2020-12/schema#" }));
  assert.throws(
    () => compileSchema({ $schema: "http://json-schema.org/draft-07/schema#" }),
    /schema\/\$schema is "http:\/\/json-schema.org\/draft-07\/schema#": only JSON Schema 2020-12 is validated/,
  );
  assert.throws(() => compileSchema({ properties: { a: { $schema: "x" } } }), /schema\/properties\/a\/\$schema is "x"/);
});

Deno.test("keywords 2020-12 does not define are annotations, and so are meta-data and content keywords", () => {
  const check = compileSchema({
    type: "string",
    "x-order": 3,
    nullable: true,
    title: "t",
    description: "d",
    default: 1,
    examples: [1],
    deprecated: true,
    readOnly: true,
    writeOnly: true,
    $comment: "c",
    contentMediaType: "application/json",
    contentEncoding: "base64",
    contentSchema: { type: "object" },
  });
  assert.equal(check("not json, not base64"), undefined);
  assert.equal(check(null)?.keyword, "type", "nullable is not a 2020-12 keyword");
});

Deno.test("the cheap rules of a schema are checked before its subschemas", () => {
  const check = compileSchema({
    type: "object",
    required: ["a"],
    properties: { b: { type: "string" } },
    allOf: [false],
  });
  assert.equal(check([])?.keyword, "type");
  assert.equal(check({ b: 1 })?.keyword, "required");
  assert.deepEqual(check({ a: 1, b: 1 })?.path, ["b"]);
  assert.equal(check({ a: 1 })?.keyword, "false schema");
});
