import assert from "node:assert/strict";
import { pointerOf, type Refuse, SchemaDocument } from "./_document.ts";
import { SUBSCHEMA_KEYWORDS } from "./subschema_keywords.ts";

const refuse: Refuse = (tokens, problem) => {
  throw new TypeError(`${pointerOf(tokens)} ${problem}`);
};

const all = [...SUBSCHEMA_KEYWORDS.single, ...SUBSCHEMA_KEYWORDS.maps, ...SUBSCHEMA_KEYWORDS.lists];

Deno.test("SUBSCHEMA_KEYWORDS names each keyword in one group only, and every 2020-12 applicator", () => {
  assert.equal(new Set(all).size, all.length);
  for (const keyword of ["items", "prefixItems", "$defs", "dependentSchemas", "unevaluatedProperties", "oneOf"]) {
    assert.ok(all.includes(keyword), keyword);
  }
  assert.ok(!all.includes("const") && !all.includes("enum"), "const and enum hold data, not subschemas");
});

Deno.test("a walk over SUBSCHEMA_KEYWORDS reaches an $anchor under each keyword, and none inside const", () => {
  const nest = (keyword: string, sub: unknown): unknown =>
    SUBSCHEMA_KEYWORDS.maps.includes(keyword)
      ? { x: sub }
      : SUBSCHEMA_KEYWORDS.lists.includes(keyword)
      ? [{}, sub]
      : sub;
  const schema = Object.fromEntries(
    all.map((keyword) => [keyword, nest(keyword, { $anchor: `at_${keyword.replace("$", "")}` })]),
  );
  const doc = new SchemaDocument({ ...schema, const: { $anchor: "data" } }, refuse);
  const anchors = [...doc.rootResource.anchors.keys()].sort();
  assert.deepEqual(anchors, all.map((keyword) => `at_${keyword.replace("$", "")}`).sort());
});
