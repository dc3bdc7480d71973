import assert from "node:assert/strict";
import { compileInputValidator } from "./input_validator.ts";
import { compileOutputValidator } from "./output_schema.ts";
import type { ObjectSchema } from "./schema.ts";

const fail = (problem: string) => new TypeError(`Cannot register tool "t": ${problem}`);

Deno.test("the output check names the JSON Pointer of the part that broke the rule, and the rule", () => {
  const check = compileOutputValidator({
    type: "object",
    properties: {
      rows: { type: "array", items: { type: "object", properties: { id: { type: "integer" } }, required: ["id"] } },
      note: { type: ["string", "null"] },
      "a/b": { const: 1 },
    },
    required: ["rows"],
    additionalProperties: false,
  }, fail);
  assert.equal(check({ rows: [{ id: 1 }], note: null }), undefined);
  assert.equal(check({ rows: [{ id: 1.5 }] }), '"/rows/0/id": must be an integer (type), got the number 1.5');
  assert.equal(check({}), '"/rows": is missing (required)');
  assert.match(check({ rows: [], extra: 1 })!, /^"\/extra": is not an allowed property \(additionalProperties\)/);
  assert.equal(check({ rows: [], "a/b": 2 }), '"/a~1b": must be 1 (const), got the number 2');
});

Deno.test("the output check refuses at registration a schema the engine cannot enforce, naming outputSchema", () => {
  assert.throws(
    () => compileOutputValidator({ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } }, fail),
    /^TypeError: Cannot register tool "t": outputSchema\/properties\/a\/\$ref "https:\/\/example.com\/a.json" refers to a schema outside this one .*never fetched/,
  );
});

Deno.test("the output check and the input check give the same verdict on the same schema", () => {
  const schema: ObjectSchema = {
    type: "object",
    properties: { v: { const: { a: 2, b: [1, { c: null }] } }, u: { uniqueItems: true } },
    $defs: {},
  };
  const input = compileInputValidator(schema, fail);
  const output = compileOutputValidator(schema, fail);
  const values = [
    { v: { b: [1, { c: null }], a: 2 } },
    { v: { a: 2, b: [1, { c: 0 }] } },
    { u: [{ x: 1, y: 2 }, { y: 2, x: 1 }] },
    { u: [{ x: 1 }, { x: 2 }] },
  ];
  for (const value of values) {
    assert.equal(input(value) === undefined, output(value) === undefined, JSON.stringify(value));
  }
  assert.deepEqual(values.map((value) => output(value) === undefined), [true, false, false, true]);
});

Deno.test("the output check only walks as deep as the schema, whatever the value's depth", () => {
  const deep = JSON.parse("[".repeat(50_000) + "]".repeat(50_000));
  const check = compileOutputValidator({ type: "object", properties: { d: { type: "array" } } }, fail);
  assert.equal(check({ d: deep }), undefined);
});
