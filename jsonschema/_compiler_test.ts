import assert from "node:assert/strict";
import { compileSchema, SchemaError } from "./mod.ts";

Deno.test("references that loop back without going into the value are refused: checking would never end", () => {
  const loops = [
    { $ref: "#" },
    { $defs: { a: { $ref: "#/$defs/b" }, b: { allOf: [{ $ref: "#/$defs/a" }] } }, $ref: "#/$defs/a" },
    { $defs: { a: { anyOf: [{ not: { $ref: "#/$defs/a" } }] } }, properties: { x: { $ref: "#/$defs/a" } } },
  ];
  for (const schema of loops) {
    assert.throws(
      () => compileSchema(schema),
      (err: unknown) =>
        err instanceof SchemaError && /refers back to itself without going into the value/.test(err.problem),
      JSON.stringify(schema),
    );
  }
  assert.doesNotThrow(() => compileSchema({ $defs: { a: { $ref: "#/$defs/a" } } }), "a loop nothing reaches");
  assert.doesNotThrow(() => compileSchema({ items: { $ref: "#" } }), "recursion into the items");
});

Deno.test("a $ref may point anywhere in the document, `definitions` or an unknown keyword included", () => {
  const check = compileSchema({
    definitions: { n: { type: "integer" } },
    x: { y: { minimum: 1 } },
    $ref: "#/definitions/n",
    allOf: [{ $ref: "#/x/y" }],
  });
  assert.equal(check(2), undefined);
  assert.equal(check(0)?.keyword, "minimum");
  assert.equal(check("a")?.keyword, "type");
});

Deno.test("the compiler names the schema and the JSON Pointer of what it refuses", () => {
  assert.throws(
    () => compileSchema({ properties: { "a/b": { minItems: -1 } } }, { name: "outputSchema" }),
    (err: unknown) =>
      err instanceof SchemaError &&
      err.problem === "outputSchema/properties/a~1b/minItems must be a non-negative integer",
  );
  assert.throws(
    () => compileSchema(5),
    /Cannot compile the schema: schema must be a schema \(an object or a boolean\)/,
  );
});
