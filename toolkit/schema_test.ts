import assert from "node:assert/strict";
import {
  arrayProp,
  boolProp,
  enumProp,
  intProp,
  numProp,
  objectProp,
  schema,
  stringMapProp,
  strProp,
} from "@forge/toolkit";

Deno.test("schema() always has properties as an object and omits an empty required", () => {
  const empty = schema();
  assert.deepEqual(empty, { type: "object", properties: {}, additionalProperties: false });
  assert.ok(!("required" in empty));
  assert.notEqual(JSON.parse(JSON.stringify(empty)).properties, null);
});

Deno.test("schema() lists required properties and refuses unknown ones", () => {
  const s = schema({ a: strProp("A"), b: intProp("B") }, ["a"]);
  assert.deepEqual(s.required, ["a"]);
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
