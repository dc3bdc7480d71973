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

Deno.test("formProblem() checks a form against the rules of the client's revision: 2025-06-18 lacks what 2025-11-25 added", () => {
  const titled = [{ const: "a", title: "A" }];
  /** Forms 2025-11-25 (and 2026-07-28) allow and 2025-06-18 does not, each with what is said of it. */
  const newer: [Record<string, unknown>, string][] = [
    [
      { m: { type: "array", items: { type: "string", enum: ["a"] } } },
      'property "m" is a multi-select enum (an array)',
    ],
    [{ m: { type: "array", items: { anyOf: titled } } }, 'property "m" is a multi-select enum (an array)'],
    [{ s: { type: "string", oneOf: titled } }, 'property "s" is a titled enum (oneOf of {const, title})'],
    [{ s: { type: "string", pattern: "^a" } }, 'property "s" has "pattern"'],
    [{ s: { type: "string", default: "x" } }, 'property "s" has a string default'],
    [{ s: { type: "string", enum: ["a"], default: "a" } }, 'property "s" has a string default'],
    [{ n: { type: "number", default: 1 } }, 'property "n" has a number default'],
    [{ n: { type: "integer", default: 1 } }, 'property "n" has an integer default'],
  ];
  for (const [properties, said] of newer) {
    const form = { type: "object", properties: { ok: { type: "boolean" }, ...properties } };
    for (const version of [undefined, "2025-11-25", "2026-07-28"]) {
      assert.equal(formProblem(form, version), undefined, `${version}: ${JSON.stringify(form)}`);
    }
    for (const version of ["2025-06-18", "2025-03-26", "2024-11-05"]) {
      assert.equal(
        formProblem(form, version),
        `${said}, which MCP 2025-06-18 forms do not have; the client speaks ${version}`,
      );
    }
  }
  const dialect = { type: "object", $schema: "https://json-schema.org/draft/2020-12/schema", properties: {} };
  assert.equal(formProblem(dialect, "2025-11-25"), undefined);
  assert.equal(
    formProblem(dialect, "2025-06-18"),
    'requestedSchema has "$schema", which MCP 2025-06-18 forms do not have; the client speaks 2025-06-18',
  );
  // What 2025-06-18 has: every kind of its schema.ts, a boolean's default, enumNames, and the toolkit's top keywords.
  const old = schema({
    name: strProp("Name", { minLength: 1, maxLength: 9, format: "email" }),
    n: intProp("N", { minimum: 0, maximum: 3 }),
    r: numProp("R"),
    b: boolProp("B", { default: true }),
    c: enumProp(["a", "b"], "C"),
    t: { type: "string", enum: ["a"], enumNames: ["A"] },
  }, ["name"]);
  assert.equal(formProblem({ ...old, title: "T", description: "D" }, "2025-06-18"), undefined);
  // A form no revision allows is said as before, not as a revision's.
  const nested = { type: "object", properties: { a: { type: "object", properties: {} }, m: { type: "array" } } };
  assert.match(formProblem(nested, "2025-06-18") ?? "(allowed)", /^property "a" is an object \(a form is flat\)/);
});
