import assert from "node:assert/strict";
import {
  DEFAULT_BASE,
  follow,
  pointerOf,
  pointerTokens,
  type Refuse,
  resolveRef,
  SchemaDocument,
} from "./_document.ts";

const refuse: Refuse = (tokens, problem) => {
  throw new TypeError(`${pointerOf(tokens)} ${problem}`);
};

Deno.test("SchemaDocument finds every resource by its resolved $id, and each subschema's resource", () => {
  const doc = new SchemaDocument({
    $id: "https://example.com/a/root.json",
    $defs: { b: { $id: "b.json", properties: { c: { $id: "/c.json" } } }, plain: {} },
  }, refuse);
  assert.deepEqual([...doc.resources.keys()], [
    "https://example.com/a/root.json",
    "https://example.com/a/b.json",
    "https://example.com/c.json",
  ]);
  assert.equal(doc.resourceAt(["$defs", "plain"]).uri, "https://example.com/a/root.json");
  assert.equal(doc.resourceAt(["$defs", "b", "properties"]).uri, "https://example.com/a/b.json");
  assert.equal(doc.resourceAt(["$defs", "b", "unknown", "x"]).uri, "https://example.com/a/b.json");
  assert.equal(new SchemaDocument({}, refuse).rootResource.uri, DEFAULT_BASE);
  assert.equal(new SchemaDocument(true, refuse).rootResource.uri, DEFAULT_BASE);
});

Deno.test("SchemaDocument records anchors per resource and notes whether $dynamicRef is used", () => {
  const doc = new SchemaDocument({
    $defs: { a: { $anchor: "first" }, d: { $dynamicAnchor: "meta" }, r: { $dynamicRef: "#meta" } },
  }, refuse);
  assert.deepEqual(doc.rootResource.anchors.get("first"), ["$defs", "a"]);
  assert.deepEqual(doc.rootResource.anchors.get("meta"), ["$defs", "d"]);
  assert.ok(doc.rootResource.dynamicAnchors.has("meta"));
  assert.ok(doc.dynamic);
  assert.ok(!new SchemaDocument({ $defs: { a: { $anchor: "x" } } }, refuse).dynamic);
});

Deno.test("SchemaDocument ignores $id and anchors where no subschema can be (enum, const, unknown keywords)", () => {
  const doc = new SchemaDocument(
    { enum: [{ $id: "https://x/e" }], const: { $anchor: "c" }, other: { $id: "y" } },
    refuse,
  );
  assert.deepEqual([...doc.resources.keys()], [DEFAULT_BASE]);
  assert.equal(doc.rootResource.anchors.size, 0);
});

Deno.test("SchemaDocument refuses an $id with a fragment, a repeated $id or anchor, and a malformed anchor", () => {
  assert.throws(() => new SchemaDocument({ $id: "https://x/a#frag" }, refuse), /\/\$id must not hold a fragment/);
  assert.throws(
    () => new SchemaDocument({ $defs: { a: { $id: "https://x/a" }, b: { $id: "https://x/a" } } }, refuse),
    /\/\$defs\/b\/\$id repeats the \$id/,
  );
  assert.throws(
    () => new SchemaDocument({ $defs: { a: { $anchor: "n" }, b: { $anchor: "n" } } }, refuse),
    /\/\$defs\/b\/\$anchor repeats the anchor "n"/,
  );
  assert.throws(() => new SchemaDocument({ $anchor: "1x" }, refuse), /\/\$anchor must be a name/);
  assert.throws(() => new SchemaDocument({ $id: 5 }, refuse), /\/\$id must be a string/);
});

Deno.test("resolveRef() resolves against the base and splits off the decoded fragment", () => {
  assert.deepEqual(resolveRef("b.json#/x", "https://example.com/a/root.json"), {
    uri: "https://example.com/a/b.json",
    fragment: "/x",
  });
  assert.deepEqual(resolveRef("#/$defs/a%25b", DEFAULT_BASE), { uri: DEFAULT_BASE, fragment: "/$defs/a%b" });
  assert.deepEqual(resolveRef("#", "urn:example:x"), { uri: "urn:example:x", fragment: "" });
  assert.deepEqual(resolveRef('#/a"b', DEFAULT_BASE), { uri: DEFAULT_BASE, fragment: '/a"b' });
  assert.equal(resolveRef("#%zz", DEFAULT_BASE), undefined, "a malformed escape");
  assert.equal(resolveRef("b", "urn:example:x"), undefined, "a relative path has no base in a URN");
});

Deno.test("pointerTokens() and pointerOf() undo each other, escaping ~ and /", () => {
  const tokens = ["a/b", "c~d", "", "0"];
  assert.equal(pointerOf(tokens), "/a~1b/c~0d//0");
  assert.deepEqual(pointerTokens(pointerOf(tokens)), tokens);
  assert.deepEqual(pointerTokens(""), []);
});

Deno.test("follow() walks own properties and array indexes only", () => {
  const doc = JSON.parse('{"a": [{"__proto__": 1}], "b": {}}');
  assert.equal(follow(doc, ["a", "0", "__proto__"]), 1);
  assert.equal(follow(doc, ["b", "toString"]), undefined);
  assert.equal(follow(doc, ["a", "01"]), undefined);
  assert.equal(follow(doc, ["a", "5"]), undefined);
  assert.equal(follow(doc, []), doc);
});
