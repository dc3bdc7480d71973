import assert from "node:assert/strict";
import { checkValue, unsupportedKeyword } from "./output_schema.ts";

Deno.test("checkValue() enforces types, required, additionalProperties and nested items", () => {
  const schema = {
    type: "object" as const,
    properties: {
      rows: {
        type: "array" as const,
        items: { type: "object" as const, properties: { id: { type: "integer" as const } }, required: ["id"] },
      },
      note: { type: ["string", "null"] as ("string" | "null")[] },
    },
    required: ["rows"],
    additionalProperties: false,
  };
  assert.equal(checkValue(schema, { rows: [{ id: 1 }], note: null }), undefined);
  assert.equal(checkValue(schema, { rows: [{ id: 1.5 }] }), "/rows/0/id: expected integer, got number");
  assert.equal(checkValue(schema, {}), '/: missing required property "rows"');
  assert.equal(checkValue(schema, { rows: [], extra: 1 }), "/extra: no value is allowed here");
  assert.equal(checkValue(schema, { rows: "x" }), "/rows: expected array, got string");
});

Deno.test("checkValue() enforces enum, const, bounds, lengths, pattern and combinators", () => {
  assert.match(checkValue({ enum: ["a"] }, "b")!, /not one of the allowed values/);
  assert.match(checkValue({ const: 3 }, 4)!, /not the constant/);
  assert.match(checkValue({ minimum: 2 }, 1)!, /below 2/);
  assert.match(checkValue({ exclusiveMaximum: 2 }, 2)!, /not below 2/);
  assert.match(checkValue({ maxLength: 2 }, "😀😀😀")!, /longer than 2/);
  assert.equal(checkValue({ maxLength: 2 }, "😀😀"), undefined, "length counts code points");
  assert.match(checkValue({ pattern: "^a+$" }, "ab")!, /does not match/);
  assert.match(checkValue({ minItems: 1 }, [])!, /fewer than 1/);
  assert.match(checkValue({ anyOf: [{ type: "string" }, { type: "integer" }] }, true)!, /none of anyOf/);
  assert.match(checkValue({ oneOf: [{ type: "number" }, { type: "integer" }] }, 1)!, /exactly one/);
  assert.equal(checkValue({ allOf: [{ type: "number" }, { minimum: 0 }] }, 1), undefined);
});

Deno.test("unsupportedKeyword() names any keyword the checker would not enforce", () => {
  assert.equal(unsupportedKeyword({ type: "object", properties: { a: { type: "string", format: "uri" } } }), undefined);
  assert.equal(unsupportedKeyword({ type: "object", $defs: {} }), "#/$defs");
  assert.equal(
    unsupportedKeyword({ anyOf: [{ type: "string" }, { patternProperties: {} }] }),
    "#/anyOf/1/patternProperties",
  );
  assert.equal(unsupportedKeyword({ items: { if: {} } }), "#/items/if");
});

Deno.test("checkValue() only walks as deep as the schema, whatever the value's depth", () => {
  const deep = JSON.parse("[".repeat(50_000) + "]".repeat(50_000));
  assert.equal(checkValue({ type: "object", properties: { d: { type: "array" } } }, { d: deep }), undefined);
});
