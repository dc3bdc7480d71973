import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";

Deno.test("properties checks each named property present and puts its name in the path", () => {
  const check = compileSchema({ properties: { a: { type: "integer" }, "b.c": { type: "string" } } });
  assert.equal(check({ a: 1, other: [] }), undefined);
  assert.deepEqual(check({ a: "1" })?.path, ["a"]);
  assert.deepEqual(check({ "b.c": 1 })?.path, ["b.c"]);
  assert.equal(check({ toString: 1, __proto__: 1 }), undefined, "inherited names are not properties");
});

Deno.test("patternProperties checks every property whose name matches, besides properties", () => {
  const check = compileSchema({
    properties: { x_a: { minimum: 0 } },
    patternProperties: { "^x_": { type: "integer" } },
  });
  assert.equal(check({ x_a: 1, y: "any" }), undefined);
  assert.equal(check({ x_a: 1.5 })?.keyword, "type");
  assert.equal(check({ x_a: -1 })?.keyword, "minimum");
  assert.throws(
    () => compileSchema({ patternProperties: { "(": {} } }),
    /schema\/patternProperties\/\( is not a valid/,
  );
});

Deno.test("additionalProperties applies to the properties no name or pattern matched, and lists the allowed ones", () => {
  const closed = compileSchema({
    properties: { a: {}, b: {} },
    patternProperties: { "^x": {} },
    additionalProperties: false,
  });
  assert.equal(closed({ a: 1, x1: 2 }), undefined);
  const failure = closed({ a: 1, c: 2 });
  assert.deepEqual(failure?.path, ["c"]);
  assert.equal(failure?.message, 'is not an allowed property (additionalProperties); its properties are "a", "b"');
  assert.deepEqual(failure?.allowed, ["a", "b"]);
  assert.equal(
    compileSchema({ additionalProperties: false })({ a: 1 })?.message,
    "is not an allowed property (additionalProperties); it allows none",
  );
  const typed = compileSchema({ properties: { a: {} }, additionalProperties: { type: "string" } });
  assert.equal(typed({ a: 1, b: "x" }), undefined);
  assert.deepEqual(typed({ b: 2 })?.path, ["b"]);
});

Deno.test("propertyNames checks every name before any pattern runs on it", () => {
  const check = compileSchema({ propertyNames: { maxLength: 3 }, patternProperties: { "^(a+)+$": false } });
  assert.equal(check({ ab: 1 }), undefined);
  const long = `${"a".repeat(100_000)}!`;
  const failure = check({ [long]: 1 });
  assert.equal(failure?.keyword, "propertyNames");
  assert.equal(failure?.message, "its name must be at most 3 characters long (propertyNames), got 100001");
});

Deno.test("a null sent for an optional property is flagged, so the caller can say to leave it out", () => {
  const check = compileSchema({ properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["b"] });
  assert.equal(check({ a: null, b: 1 })?.nullForOptional, true);
  assert.equal(check({ b: null })?.nullForOptional, false, "a required property cannot be left out");
  assert.equal(check({ a: "x", b: 1 })?.nullForOptional, false);
});

Deno.test("dependentSchemas applies a schema to the whole object when a property is present", () => {
  const check = compileSchema({ dependentSchemas: { card: { required: ["billing"] } } });
  assert.equal(check({ other: 1 }), undefined);
  assert.deepEqual(check({ card: 1 })?.path, ["billing"]);
  assert.equal(check({ card: 1, billing: 1 }), undefined);
});

Deno.test("properties, patternProperties and dependentSchemas must be objects of schemas", () => {
  assert.throws(() => compileSchema({ properties: [] }), /schema\/properties must be an object of schemas/);
  assert.throws(() => compileSchema({ properties: { a: 1 } }), /schema\/properties\/a must be a schema/);
  assert.throws(() => compileSchema({ dependentSchemas: { a: "x" } }), /schema\/dependentSchemas\/a must be a schema/);
});

Deno.test("prefixItems checks the first items by position and items the rest, with the index in the path", () => {
  const check = compileSchema({ prefixItems: [{ type: "string" }, { type: "integer" }], items: { type: "boolean" } });
  assert.equal(check(["a", 1, true, false]), undefined);
  assert.equal(check(["a"]), undefined, "a shorter array is fine");
  assert.deepEqual(check(["a", "b"])?.path, [1]);
  assert.deepEqual(check(["a", 1, true, 0])?.path, [3]);
  const tuple = compileSchema({ prefixItems: [{}, {}], items: false });
  assert.equal(tuple([1, 2]), undefined);
  assert.equal(tuple([1, 2, 3])?.message, "must hold at most 2 items (items), got 3");
});

Deno.test("items written as a list (the older tuple form) is refused with the 2020-12 spelling", () => {
  assert.throws(
    () => compileSchema({ items: [{}] }),
    /schema\/items must be a schema; JSON Schema 2020-12 writes a tuple with prefixItems/,
  );
});

Deno.test("contains needs one matching item, minContains and maxContains bound how many", () => {
  const one = compileSchema({ contains: { const: 1 } });
  assert.equal(one([0, 1]), undefined);
  assert.equal(one([])?.message, "must hold at least 1 items that match contains (contains), got 0");
  const two = compileSchema({ contains: { const: 1 }, minContains: 2, maxContains: 3 });
  assert.equal(two([1, 1, 0]), undefined);
  assert.equal(two([1, 0])?.message, "must hold at least 2 items that match contains (minContains), got 1");
  assert.equal(two([1, 1, 1, 1])?.keyword, "maxContains");
  const none = compileSchema({ contains: { const: 1 }, minContains: 0 });
  assert.equal(none([]), undefined);
  assert.equal(compileSchema({ minContains: 5 })([]), undefined, "minContains without contains does nothing");
});

Deno.test("allOf needs every subschema, and reports the first failure inside it", () => {
  const check = compileSchema({ allOf: [{ type: "string" }, { maxLength: 1 }] });
  assert.equal(check("x"), undefined);
  assert.equal(check("xy")?.keyword, "maxLength");
});

Deno.test("anyOf needs one subschema, oneOf exactly one, and both say how many matched", () => {
  const any = compileSchema({ anyOf: [{ type: "integer", minimum: 0 }, { type: "string" }] });
  assert.equal(any(1), undefined);
  assert.equal(any(-1)?.message, "matches none of the 2 allowed forms (anyOf)");
  const one = compileSchema({ oneOf: [{ type: "integer" }, { type: "number" }] });
  assert.equal(one(1.5), undefined);
  assert.equal(one(1)?.message, "must match exactly one of 2 forms (oneOf), matches 2");
  assert.equal(one("a")?.message, "must match exactly one of 2 forms (oneOf), matches 0");
});

Deno.test("not refuses what its subschema accepts", () => {
  const check = compileSchema({ not: { type: "null" } });
  assert.equal(check(0), undefined);
  assert.equal(check(null)?.message, "must not match the schema under not (not)");
  assert.equal(compileSchema({ not: false })(1), undefined);
});

Deno.test("if picks then or else; without if they do nothing, and if alone decides nothing", () => {
  const check = compileSchema({ if: { type: "string" }, then: { minLength: 2 }, else: { minimum: 0 } });
  assert.equal(check("ab"), undefined);
  assert.equal(check("a")?.keyword, "minLength");
  assert.equal(check(1), undefined);
  assert.equal(check(-1)?.keyword, "minimum");
  assert.equal(compileSchema({ then: false, else: false })(1), undefined);
  assert.equal(compileSchema({ if: false })(1), undefined);
  assert.equal(compileSchema({ if: { type: "string" }, then: false })(1), undefined, "no else: a non-string passes");
});

Deno.test("allOf, anyOf and oneOf must be non-empty lists of schemas", () => {
  assert.throws(() => compileSchema({ anyOf: [] }), /schema\/anyOf must be a non-empty array of schemas/);
  assert.throws(() => compileSchema({ allOf: {} }), /schema\/allOf must be a non-empty array of schemas/);
  assert.throws(() => compileSchema({ oneOf: [1] }), /schema\/oneOf\/0 must be a schema/);
});

Deno.test("anyOf of types or of required properties says which types or properties it wanted", () => {
  const optional = compileSchema({ anyOf: [{ type: "integer" }, { type: "null" }] });
  assert.equal(optional("x")?.message, 'must be an integer or null (anyOf), got the string "x"');
  const either = compileSchema({ anyOf: [{ required: ["phone"] }, { required: ["email"] }] });
  assert.equal(either({})?.message, 'must have "phone" or "email" (anyOf)');
  assert.equal(either({ email: 1 }), undefined);
});
