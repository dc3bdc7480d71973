import assert from "node:assert/strict";
import { intProp, schema, strProp } from "@forge/toolkit";
import { jsonType, passesSchema } from "./_schema_check.ts";

Deno.test("passesSchema() applies bounds, lengths, patterns, enums and required names", () => {
  const s = schema({
    path: strProp("p", { maxLength: 4, pattern: "^[a-z]+$" }),
    n: intProp("n", { minimum: 1, maximum: 9 }),
  }, ["path"]);
  assert.equal(passesSchema(s, { path: "abc" }), true);
  assert.equal(passesSchema(s, { path: "abcde" }), false, "maxLength");
  assert.equal(passesSchema(s, { path: "ab1" }), false, "pattern");
  assert.equal(passesSchema(s, {}), false, "required");
  assert.equal(passesSchema(s, { path: "a", n: 0 }), false, "minimum");
  assert.equal(passesSchema(s, { path: "a", n: 2.5 }), false, "integer");
  assert.equal(passesSchema(s, { path: "a", n: Infinity }), false, "1e400 parses to Infinity");
  assert.equal(passesSchema(s, { path: "a", extra: 1 }), false, "additionalProperties: false");
  assert.equal(passesSchema({ enum: ["a", "b"] }, "A"), false);
});

Deno.test("jsonType() tells integers from other numbers", () => {
  assert.deepEqual([1, 1.5, null, [], {}, "x"].map(jsonType), [
    "integer",
    "number",
    "null",
    "array",
    "object",
    "string",
  ]);
});
