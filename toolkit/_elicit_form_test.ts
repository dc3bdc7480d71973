import assert from "node:assert/strict";
import { formProblem } from "./_elicit_form.ts";
import { boolProp, enumProp, intProp, numProp, schema, strProp } from "./schema.ts";

Deno.test("formProblem() takes the helpers' flat forms and every property kind MCP's elicitation allows", () => {
  const forms = [
    schema(),
    schema({ name: strProp("Name", { minLength: 1, maxLength: 9, format: "date", default: "x" }) }, ["name"]),
    schema({ n: intProp("N", { minimum: 0, maximum: 3 }), r: numProp("R", { default: 1.5 }), b: boolProp("B") }),
    schema({ c: enumProp(["a", "b"], "C") }),
    { type: "object", $schema: "https://json-schema.org/draft/2020-12/schema", title: "T", properties: {} },
    { type: "object", properties: { s: { type: "string", enum: ["a"], enumNames: ["A"] } } },
    { type: "object", properties: { s: { type: "string", oneOf: [{ const: "a", title: "A" }] } } },
    { type: "object", properties: { m: { type: "array", items: { type: "string", enum: ["a"] }, minItems: 0 } } },
    { type: "object", properties: { m: { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } } } },
  ];
  for (const form of forms) assert.equal(formProblem(form), undefined, JSON.stringify(form));
});

Deno.test("formProblem() names the property and the rule of a form outside MCP's flat subset", () => {
  const cases: [unknown, RegExp][] = [
    [{ type: "object" }, /^requestedSchema.properties must be an object$/],
    [{ type: "array", properties: {} }, /^requestedSchema must be \{type: "object", properties\}$/],
    [{ type: "object", properties: {}, allOf: [] }, /^requestedSchema has "allOf", which a form may not use/],
    [{ type: "object", properties: {}, additionalProperties: {} }, /additionalProperties must be true or false/],
    [{ type: "object", properties: { a: true } }, /^property "a" must be a schema object/],
    [{ type: "object", properties: { a: {} } }, /^property "a" has no type/],
    [{ type: "object", properties: { a: { type: "null" } } }, /^property "a" has the type "null"/],
    [{ type: "object", properties: { a: { type: ["string", "null"] } } }, /^property "a" has the type "string,null"/],
    [{ type: "object", properties: { a: { type: "object", properties: {} } } }, /^property "a" is an object/],
    [{ type: "object", properties: { a: { type: "string", $ref: "#" } } }, /^property "a" has "\$ref"/],
    [{ type: "object", properties: { a: { type: "string", format: "ipv4" } } }, /has the format "ipv4"/],
    [{ type: "object", properties: { a: { type: "string", enum: [] } } }, /an enum of one or more strings/],
    [{ type: "object", properties: { a: { type: "string", enum: [1] } } }, /an enum of one or more strings/],
    [{ type: "object", properties: { a: { type: "string", enum: ["x"], enumNames: [] } } }, /one string in enumNames/],
    [{ type: "object", properties: { a: { type: "string", oneOf: [{ const: "x" }] } } }, /a oneOf of \{const, title\}/],
    [{ type: "object", properties: { a: { type: "integer", minimum: "0" } } }, /must have a number minimum/],
    [{ type: "object", properties: { a: { type: "boolean", default: "yes" } } }, /must have a boolean default/],
    [{ type: "object", properties: { a: { type: "array", items: { type: "string" } } } }, /items are not an enum/],
    [{ type: "object", properties: { a: { type: "array", items: { type: "object" } } } }, /items are not an enum/],
    [{ type: "object", properties: {}, required: ["a"] }, /requires "a", which is not one of its properties/],
    [{ type: "object", properties: { ["x".repeat(100)]: {} } }, /^property "x{64}…" has no type/],
  ];
  for (const [form, said] of cases) assert.match(formProblem(form) ?? "(allowed)", said, JSON.stringify(form));
});
