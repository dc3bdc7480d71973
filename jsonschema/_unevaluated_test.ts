import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";

Deno.test("unevaluatedProperties sees the properties evaluated by allOf, $ref and dependentSchemas", () => {
  const check = compileSchema({
    $defs: { named: { properties: { name: { type: "string" } } } },
    allOf: [{ properties: { a: true } }],
    $ref: "#/$defs/named",
    dependentSchemas: { kind: { properties: { extra: true } } },
    properties: { kind: true },
    unevaluatedProperties: false,
  });
  assert.equal(check({ a: 1, name: "n", kind: 1, extra: 2 }), undefined);
  const failure = check({ a: 1, extra: 2 });
  assert.deepEqual([failure?.path, failure?.message], [
    ["extra"],
    "is not an allowed property (unevaluatedProperties)",
  ]);
});

Deno.test("unevaluatedProperties counts only the anyOf and oneOf branches that passed", () => {
  const check = compileSchema({
    anyOf: [
      { properties: { a: { const: 1 } }, required: ["a"] },
      { properties: { b: { const: 1 } }, required: ["b"] },
    ],
    unevaluatedProperties: false,
  });
  assert.equal(check({ a: 1, b: 1 }), undefined, "both branches passed: a and b are evaluated");
  assert.deepEqual(check({ a: 1, b: 2 })?.path, ["b"], "the b branch failed: its annotation is dropped");
  const one = compileSchema({
    oneOf: [{ properties: { a: true }, required: ["a"] }, { properties: { b: true }, required: ["b"] }],
    unevaluatedProperties: false,
  });
  assert.equal(one({ a: 1 }), undefined);
  assert.equal(one({ a: 1, b: 1 })?.keyword, "oneOf");
});

Deno.test("unevaluatedProperties: if lends its annotations when it passes; not never does", () => {
  const check = compileSchema({
    if: { properties: { kind: { const: "a" } }, required: ["kind"] },
    then: { properties: { forA: true } },
    else: { properties: { forOther: true } },
    unevaluatedProperties: false,
  });
  assert.equal(check({ kind: "a", forA: 1 }), undefined);
  assert.deepEqual(check({ kind: "b", forOther: 1 })?.path, ["kind"], "if failed: kind is not evaluated");
  assert.deepEqual(check({ kind: "a", forOther: 1 })?.path, ["forOther"]);
  const not = compileSchema({ not: { not: { properties: { a: true } } }, unevaluatedProperties: false });
  assert.deepEqual(not({ a: 1 })?.path, ["a"]);
});

Deno.test("unevaluatedProperties with a schema checks the rest, and additionalProperties leaves no rest", () => {
  const typed = compileSchema({ properties: { a: true }, unevaluatedProperties: { type: "integer" } });
  assert.equal(typed({ a: "x", b: 1 }), undefined);
  assert.deepEqual(typed({ b: "1" })?.path, ["b"]);
  const closed = compileSchema({ additionalProperties: true, unevaluatedProperties: false });
  assert.equal(closed({ any: 1 }), undefined);
  const nested = compileSchema({
    properties: { inner: { properties: { x: true }, unevaluatedProperties: false } },
    unevaluatedProperties: false,
  });
  assert.deepEqual(nested({ inner: { x: 1, y: 2 } })?.path, ["inner", "y"]);
  assert.equal(nested({ inner: { x: 1 } }), undefined, "inner's own evaluation does not leak to the outer object");
});

Deno.test("unevaluatedItems sees prefixItems, items, contains and in-place subschemas", () => {
  const prefix = compileSchema({
    prefixItems: [true],
    allOf: [{ prefixItems: [true, true] }],
    unevaluatedItems: false,
  });
  assert.equal(prefix([1, 2]), undefined);
  assert.deepEqual(prefix([1, 2, 3])?.path, [2]);
  assert.equal(prefix([1, 2, 3])?.message, "is not an allowed item (unevaluatedItems)");
  const contains = compileSchema({ contains: { type: "string" }, unevaluatedItems: { type: "integer" } });
  assert.equal(contains(["a", 1, "b", 2]), undefined, "strings matched contains, the rest are integers");
  assert.deepEqual(contains(["a", true])?.path, [1]);
  const items = compileSchema({ anyOf: [{ items: { type: "integer" } }, true], unevaluatedItems: false });
  assert.equal(items([1, 2]), undefined);
  assert.deepEqual(items([1, "x"])?.path, [0], "the items branch failed: nothing is evaluated");
});

Deno.test("unevaluatedItems and unevaluatedProperties follow $ref through a recursive schema", () => {
  const check = compileSchema({
    $defs: {
      node: {
        type: "object",
        properties: { kids: { type: "array", items: { $ref: "#/$defs/node" }, unevaluatedItems: false } },
        unevaluatedProperties: false,
      },
    },
    $ref: "#/$defs/node",
  });
  assert.equal(check({ kids: [{ kids: [] }, {}] }), undefined);
  assert.deepEqual(check({ kids: [{ kids: [{ bad: 1 }] }] })?.path, ["kids", 0, "kids", 0, "bad"]);
});
