import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";

Deno.test("$ref points into $defs by JSON Pointer, with ~0, ~1 and percent-escapes decoded", () => {
  const check = compileSchema({
    $defs: { "a/b": { type: "integer" }, "t~x": { type: "string" }, "p%q": { type: "boolean" } },
    properties: {
      slash: { $ref: "#/$defs/a~1b" },
      tilde: { $ref: "#/$defs/t~0x" },
      percent: { $ref: "#/$defs/p%25q" },
      tuple: { prefixItems: [{ type: "null" }, { $ref: "#/properties/tuple/prefixItems/0" }] },
    },
  });
  assert.equal(check({ slash: 1, tilde: "x", percent: true, tuple: [null, null] }), undefined);
  assert.deepEqual(check({ slash: "1" })?.path, ["slash"]);
  assert.deepEqual(check({ tilde: 1 })?.path, ["tilde"]);
  assert.deepEqual(check({ percent: 1 })?.path, ["percent"]);
  assert.deepEqual(check({ tuple: [null, 1] })?.path, ["tuple", 1]);
});

Deno.test("$ref applies beside its sibling keywords, as 2020-12 says", () => {
  const check = compileSchema({ $defs: { n: { type: "integer" } }, $ref: "#/$defs/n", maximum: 5 });
  assert.equal(check(3), undefined);
  assert.equal(check(6)?.keyword, "maximum");
  assert.equal(check(1.5)?.keyword, "type");
});

Deno.test("$anchor names a subschema; $ref reaches it by name", () => {
  const check = compileSchema({ $defs: { a: { $anchor: "positive", minimum: 1 } }, items: { $ref: "#positive" } });
  assert.equal(check([1, 2]), undefined);
  assert.deepEqual(check([1, 0])?.path, [1]);
});

Deno.test("$id sets the base URI: a relative $ref resolves against the nearest $id, including URNs", () => {
  const check = compileSchema({
    $id: "https://example.com/schemas/root.json",
    properties: { item: { $ref: "item.json" }, name: { $ref: "urn:example:name#/$defs/short" } },
    $defs: {
      item: { $id: "item.json", properties: { tags: { $ref: "#/$defs/tags" } }, $defs: { tags: { type: "array" } } },
      name: { $id: "urn:example:name", $defs: { short: { maxLength: 3 } } },
    },
  });
  assert.equal(check({ item: { tags: [] }, name: "abc" }), undefined);
  assert.deepEqual(check({ item: { tags: "x" } })?.path, ["item", "tags"], "#/$defs/tags is item.json's own");
  assert.equal(check({ name: "abcd" })?.keyword, "maxLength");
});

Deno.test("a recursive $ref checks a tree to its depth, and the failure path goes all the way down", () => {
  const check = compileSchema({
    $defs: {
      node: {
        type: "object",
        properties: { value: { type: "integer" }, children: { type: "array", items: { $ref: "#/$defs/node" } } },
        additionalProperties: false,
      },
    },
    $ref: "#/$defs/node",
  });
  const tree = { value: 1, children: [{ value: 2, children: [{ value: 3 }, { value: 4, children: [] }] }] };
  assert.equal(check(tree), undefined);
  tree.children[0].children[1].value = "4" as never;
  assert.deepEqual(check(tree)?.path, ["children", 0, "children", 1, "value"]);
  const root = compileSchema({ properties: { self: { $ref: "#" } }, additionalProperties: false });
  assert.equal(root({ self: { self: {} } }), undefined);
  assert.deepEqual(root({ self: { self: { other: 1 } } })?.path, ["self", "self", "other"]);
});

Deno.test("a recursive $ref under anyOf checks each object once per target, whatever the value's depth", () => {
  // Both branches recurse and fail only after: without the memo, depth 20 would take 2^20 visits.
  const check = compileSchema({
    $defs: {
      node: {
        anyOf: [
          { type: "object", properties: { a: { $ref: "#/$defs/node" } }, allOf: [{ required: ["x"] }] },
          { type: "object", properties: { a: { $ref: "#/$defs/node" } }, allOf: [{ required: ["y"] }] },
          { type: "null" },
        ],
      },
    },
    $ref: "#/$defs/node",
  });
  let reads = 0;
  let value: unknown = null;
  for (let i = 0; i < 20; i++) {
    const inner = value;
    value = Object.defineProperty({}, "a", { enumerable: true, get: () => (reads++, inner) });
  }
  assert.equal(check(value)?.keyword, "anyOf");
  assert.ok(reads <= 20 * 4, `${reads} reads for 20 levels`);
});

Deno.test("a recursive $dynamicRef under anyOf checks each object once per target, whatever resources led there", () => {
  // Each level enters A or B: keyed by the whole chain of resources, the memo would miss on every path, 2^depth.
  const check = compileSchema({
    $id: "https://example.com/root",
    $dynamicAnchor: "node",
    $defs: {
      A: { $id: "A", type: "object", properties: { c: { $dynamicRef: "root#node" } }, allOf: [{ required: ["a"] }] },
      B: { $id: "B", type: "object", properties: { c: { $dynamicRef: "root#node" } }, allOf: [{ required: ["b"] }] },
    },
    anyOf: [{ $ref: "A" }, { $ref: "B" }, { type: "null" }],
  });
  let reads = 0;
  let value: unknown = null;
  for (let i = 0; i < 16; i++) {
    const inner = value;
    value = Object.defineProperty({}, "c", { enumerable: true, get: () => (reads++, inner) });
  }
  assert.equal(check(value)?.keyword, "anyOf");
  assert.ok(reads <= 16 * 4, `${reads} reads for 16 levels`);
});

Deno.test("$dynamicRef resolves to the outermost $dynamicAnchor of its name in the dynamic scope", () => {
  // A generic list whose items an extending schema decides: the extension's anchor wins.
  const list = compileSchema({
    $id: "https://example.com/strict-list",
    $ref: "list",
    $defs: {
      stringItem: { $dynamicAnchor: "item", type: "string" },
      list: {
        $id: "list",
        type: "array",
        items: { $dynamicRef: "#item" },
        $defs: { item: { $dynamicAnchor: "item" } },
      },
    },
  });
  assert.equal(list(["a", "b"]), undefined);
  assert.deepEqual(list(["a", 1])?.path, [1]);
  const plain = compileSchema({
    $id: "https://example.com/any-list",
    $ref: "list",
    $defs: {
      list: {
        $id: "list",
        type: "array",
        items: { $dynamicRef: "#item" },
        $defs: { item: { $dynamicAnchor: "item" } },
      },
    },
  });
  assert.equal(plain(["a", 1]), undefined, "with no outer anchor, the list's own applies");
});

Deno.test("a $ref to a schema the document does not hold is refused, never fetched, and the message says so", () => {
  assert.throws(
    () => compileSchema({ properties: { a: { $ref: "https://example.com/a.json" } } }, { name: "inputSchema" }),
    (err: Error) =>
      err.message ===
        'Cannot compile the schema: inputSchema/properties/a/$ref "https://example.com/a.json" refers to a schema ' +
          'outside this one ("https://example.com/a.json"): remote references are refused, never fetched; ' +
          "put the schema under $defs",
  );
  assert.throws(() => compileSchema({ $ref: "other.json#/$defs/x" }), /refers to a schema outside this one/);
  assert.throws(
    () => compileSchema({ $ref: "https://json-schema.org/draft/2020-12/schema" }),
    /remote references are refused/,
  );
  assert.throws(() => compileSchema({ $ref: "#nowhere" }), /schema\/\$ref "#nowhere" names no \$anchor of this schema/);
  assert.throws(() => compileSchema({ $ref: "#/$defs/missing" }), /points at nothing in this schema/);
  assert.throws(() => compileSchema({ $ref: 5 }), /schema\/\$ref must be a string/);
});
