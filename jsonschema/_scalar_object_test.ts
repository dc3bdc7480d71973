import assert from "node:assert/strict";
import { scalarObjectAcceptor } from "./_scalar_object.ts";
import { compileSchema } from "./compile_schema.ts";
import { EDGE_VALUES, engineOnly, random } from "./testdata/differential.ts";

const NAMES = ["text", "n", "mode", "__proto__", "toString", ""];
const ASTRAL = "\u{1F600}";
// Scalars near every bound the generator draws, strings whose UTF-16 length and code points differ, and non-scalars.
const VALUES: unknown[] = [
  "",
  "a",
  "ab",
  "abc",
  ASTRAL,
  ASTRAL + ASTRAL,
  "a" + ASTRAL,
  "\ud800",
  "plain",
  "upper",
  0,
  -0,
  1,
  1.5,
  2,
  3,
  -1,
  10,
  11,
  ...EDGE_VALUES,
  ["plain"],
];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)];
}

/** A scalar schema of random keywords, each drawn about half the time. */
function scalarSchema(next: () => number): Record<string, unknown> {
  const schema: Record<string, unknown> = {};
  const maybe = (p = 0.4) => next() < p;
  if (maybe(0.7)) schema.type = pick(next, ["string", "integer", "number", "boolean", "null"]);
  if (maybe(0.2)) {
    schema.enum = [pick(next, VALUES), pick(next, VALUES), "plain", 1].filter((v) =>
      typeof v !== "object" || v === null
    );
  }
  if (maybe(0.1)) schema.const = pick(next, [1, "plain", true, null, 0]);
  if (maybe()) schema.minLength = pick(next, [0, 1, 2, 3]);
  if (maybe()) schema.maxLength = pick(next, [0, 1, 2, 3]);
  if (maybe()) schema.minimum = pick(next, [-1, 0, 1, 1.5]);
  if (maybe()) schema.maximum = pick(next, [0, 1, 2, 10]);
  if (maybe(0.2)) schema.exclusiveMinimum = pick(next, [-1, 0, 1]);
  if (maybe(0.2)) schema.exclusiveMaximum = pick(next, [1, 2, 11]);
  if (maybe(0.2)) schema.description = "annotated";
  if (maybe(0.1)) schema.format = "email";
  return schema;
}

/** An object schema of scalar properties, some of them `$ref`s into `$defs` (with keywords of their own beside). */
function objectSchema(next: () => number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  const defs: Record<string, unknown> = {};
  for (const name of NAMES) {
    if (next() < 0.5) continue;
    if (next() < 0.4) {
      const def = `d${Object.keys(defs).length}`;
      defs[def] = scalarSchema(next);
      properties[name] = { ...(next() < 0.5 ? scalarSchema(next) : {}), $ref: `#/$defs/${def}` };
    } else properties[name] = scalarSchema(next);
  }
  const required = NAMES.filter(() => next() < 0.4);
  const schema: Record<string, unknown> = { type: "object", properties, required };
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  if (next() < 0.5) schema.additionalProperties = next() < 0.7 ? false : true;
  return schema;
}

function objectValue(next: () => number): unknown {
  if (next() < 0.05) return pick(next, VALUES);
  const value: Record<string, unknown> = {};
  for (const name of [...NAMES, "extra"]) {
    // An own property even for "__proto__", as JSON.parse makes one.
    if (next() < 0.6) {
      Object.defineProperty(value, name, { value: pick(next, VALUES), enumerable: true, writable: true });
    }
  }
  return value;
}

Deno.test("scalarObjectAcceptor() accepts exactly what the engine accepts, over 600 generated schemas × 80 values", () => {
  const next = random(20261207);
  let taken = 0;
  let accepted = 0;
  for (let s = 0; s < 600; s++) {
    const schema = objectSchema(next);
    const accepts = scalarObjectAcceptor(schema, false);
    assert.ok(accepts !== undefined, JSON.stringify(schema));
    taken++;
    const engine = engineOnly(schema);
    const wrapped = compileSchema(schema);
    for (let v = 0; v < 80; v++) {
      const value = objectValue(next);
      const expected = engine(value);
      assert.equal(accepts(value), expected === undefined, `${JSON.stringify(schema)} on ${JSON.stringify(value)}`);
      // compileSchema() with the shortcut in front answers as the engine alone, failure for failure.
      assert.deepEqual(wrapped(value), expected);
      if (expected === undefined) accepted++;
    }
  }
  assert.equal(taken, 600);
  assert.ok(accepted > 1000, `only ${accepted} valid values: the generator no longer reaches the accepting side`);
});

Deno.test("scalarObjectAcceptor() takes no schema it cannot decide alone", () => {
  const untaken: [string, Record<string, unknown>][] = [
    ["a pattern", { type: "object", properties: { a: { type: "string", pattern: "^a" } } }],
    ["multipleOf", { type: "object", properties: { a: { type: "number", multipleOf: 2 } } }],
    ["a type list", { type: "object", properties: { a: { type: ["string", "null"] } } }],
    ["a nested object", { type: "object", properties: { a: { type: "object" } } }],
    ["an enum of objects", { type: "object", properties: { a: { enum: [{ x: 1 }] } } }],
    ["a remote $ref", { type: "object", properties: { a: { $ref: "other.json#/$defs/a" } } }],
    ["a chained $ref", {
      type: "object",
      $defs: { a: { $ref: "#/$defs/b" }, b: { type: "string" } },
      properties: { a: { $ref: "#/$defs/a" } },
    }],
    ["a root $comment (the engine alone)", { type: "object", $comment: "x", properties: { a: { type: "string" } } }],
    ["minProperties", { type: "object", minProperties: 1, properties: {} }],
    ["an object schema of patterns", { type: "object", patternProperties: { "^a": { type: "string" } } }],
    ["a property schema true", { type: "object", properties: { a: true } }],
  ];
  for (const [label, schema] of untaken) assert.equal(scalarObjectAcceptor(schema, false), undefined, label);
  // An asserted format is checked by the engine only.
  const email = { type: "object", properties: { a: { type: "string", format: "email" } } };
  assert.notEqual(scalarObjectAcceptor(email, false), undefined);
  assert.equal(scalarObjectAcceptor(email, true), undefined);
  const validate = compileSchema(email, { assertFormats: true });
  assert.equal(validate({ a: "not an address" })?.keyword, "format");
});

Deno.test("scalarObjectAcceptor() takes no schema object with a keyword Object.keys does not list (inherited, non-enumerable, a getter), which the engine still reads", () => {
  const hidden = (keywords: Record<string, unknown>, keyword: string, value: unknown) =>
    Object.defineProperty({ ...keywords }, keyword, { value, enumerable: false });
  const inherited = (keywords: Record<string, unknown>, from: Record<string, unknown>) =>
    Object.assign(Object.create(from), keywords);
  class Text {
    type = "string";
    maxLength = 9;
    get pattern(): string {
      return "^x";
    }
  }
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["an inherited pattern", {
      type: "object",
      properties: { a: inherited({ type: "string", maxLength: 9 }, { pattern: "^x" }) },
    }, {
      a: "abc",
    }],
    ["an inherited enum in a $def", {
      type: "object",
      $defs: { d: inherited({ maxLength: 9 }, { enum: ["x"] }) },
      properties: { a: { $ref: "#/$defs/d" } },
    }, { a: "abc" }],
    ["a non-enumerable multipleOf", {
      type: "object",
      properties: { a: hidden({ type: "number", minimum: 0 }, "multipleOf", 2) },
    }, { a: 3 }],
    [
      "a non-enumerable minProperties at the root",
      hidden({ type: "object", properties: { a: { maxLength: 3 } } }, "minProperties", 1),
      {},
    ],
    ["a getter on a class", { type: "object", properties: { a: new Text() } }, { a: "abc" }],
  ];
  // Each has a keyword the plain-object check (./plain_object.ts) does not take, so compileSchema() meets this one.
  for (const [label, schema, value] of cases) {
    // The engine alone, on a copy that keeps every own property as it is and the prototype.
    const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema));
    copy.$comment = "engine only";
    assert.notEqual(compileSchema(copy)(value), undefined, `${label}: the engine refuses`);
    assert.equal(scalarObjectAcceptor(schema, false), undefined, label);
    assert.notEqual(compileSchema(schema)(value), undefined, `${label}: compileSchema() refuses`);
  }
});
