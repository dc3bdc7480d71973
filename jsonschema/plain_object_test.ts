import assert from "node:assert/strict";
import { plainObjectValidator } from "./plain_object.ts";
import { compileSchema } from "./compile_schema.ts";
import { EDGE_VALUES, engineOnly, random } from "./testdata/differential.ts";

const NAMES = ["text", "n", "", "__proto__", "constructor", "toString", "a b"];
const TYPES = ["string", "integer", "number", "boolean", "null"];
const VALUES: unknown[] = [
  "hi",
  "",
  0,
  -0,
  1,
  1.5,
  ...EDGE_VALUES,
  ["x"],
  { text: "hi" },
];

function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)];
}

function schemaOf(next: () => number): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of NAMES) {
    if (next() < 0.4) continue;
    const property: Record<string, unknown> = { type: pick(next, TYPES) };
    if (next() < 0.3) property.description = "what it is";
    if (next() < 0.1) property.default = pick(next, VALUES.filter((v) => v !== undefined && !Number.isNaN(v)));
    // JSON.parse makes "__proto__" an own key, as a client's schema would bring it.
    Object.defineProperty(properties, name, { value: property, enumerable: true, writable: true, configurable: true });
  }
  const schema: Record<string, unknown> = { type: "object", properties };
  const required = NAMES.filter(() => next() < 0.3);
  if (required.length > 0 || next() < 0.2) schema.required = required;
  const extra = next();
  if (extra < 0.4) schema.additionalProperties = false;
  else if (extra < 0.6) schema.additionalProperties = true;
  if (next() < 0.2) schema.title = "arguments";
  return schema;
}

const FITTING: Record<string, unknown[]> = {
  string: ["hi", ""],
  integer: [0, -0, 1, 2 ** 53, 1.0],
  number: [0, 1.5, -2],
  boolean: [true, false],
  null: [null],
};

/** A value near the schema: mostly its properties with values of their type, sometimes a step off. */
function valueOf(next: () => number, schema: Record<string, unknown>): unknown {
  const shape = next();
  if (shape < 0.05) return pick(next, VALUES);
  // Inherited enumerable keys, which the engine does not look at.
  const value: Record<string, unknown> = shape < 0.15 ? Object.create({ text: 1, n: "x" }) : {};
  const properties = schema.properties as Record<string, { type: string }>;
  const required = (schema.required ?? []) as string[];
  for (const name of NAMES) {
    const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
    const present = required.includes(name) ? next() < 0.95 : next() < (property === undefined ? 0.05 : 0.5);
    if (!present) continue;
    const item = property !== undefined && next() < 0.9 ? pick(next, FITTING[property.type]) : pick(next, VALUES);
    Object.defineProperty(value, name, { value: item, enumerable: true, writable: true, configurable: true });
  }
  if (next() < 0.1) Object.defineProperty(value, "hidden", { value: 1, enumerable: false });
  return value;
}

Deno.test("plainObjectValidator() answers exactly as the engine, failure for failure, over generated schemas and values", () => {
  const next = random(20261204);
  let schemas = 0, accepted = 0, refused = 0;
  for (let s = 0; s < 400; s++) {
    const schema = schemaOf(next);
    const plain = plainObjectValidator(schema);
    assert.ok(plain !== undefined, `it takes ${JSON.stringify(schema)}`);
    const engine = engineOnly(schema);
    const validate = compileSchema(schema);
    schemas++;
    for (let v = 0; v < 60; v++) {
      const value = valueOf(next, schema);
      const failure = engine(value);
      // The verdict and the failure's path, keyword, message and hints are the engine's, directly and through
      // compileSchema (which compiles nothing for such a schema).
      assert.deepEqual(plain(value), failure, `${JSON.stringify(schema)} on ${JSON.stringify(value)}`);
      assert.deepEqual(validate(value), failure);
      if (failure === undefined) accepted++;
      else refused++;
    }
  }
  // Both verdicts were exercised, many times.
  assert.equal(schemas, 400);
  assert.ok(accepted > 2000 && refused > 2000, `accepted ${accepted}, refused ${refused}`);
});

Deno.test("plainObjectValidator() leaves every other schema to the engine", () => {
  const others: unknown[] = [
    true,
    {},
    { properties: { text: { type: "string" } } },
    { type: ["object"], properties: {} },
    { type: "object", properties: { text: { type: "string", minLength: 1 } } },
    { type: "object", properties: { text: { type: "string", pattern: "^a" } } },
    { type: "object", properties: { text: { type: ["string", "null"] } } },
    { type: "object", properties: { text: { type: "object" } } },
    { type: "object", properties: { text: { type: "array" } } },
    { type: "object", properties: { text: { enum: ["a"] } } },
    { type: "object", properties: { text: true } },
    { type: "object", properties: { text: { type: "string" } }, additionalProperties: { type: "string" } },
    { type: "object", properties: {}, maxProperties: 1 },
    { type: "object", properties: {}, patternProperties: { "^a": { type: "string" } } },
    { type: "object", properties: {}, $defs: {} },
    { type: "object", properties: {}, $schema: "https://json-schema.org/draft/2020-12/schema" },
    { type: "object", properties: {}, $comment: "x" },
    // A `required` the engine refuses: only the engine may answer for it, with its refusal.
    { type: "object", properties: {}, required: "text" },
    { type: "object", properties: {}, required: ["a", "a"] },
    { type: "object", properties: {}, required: [1] },
    { type: "object", properties: { text: { type: "string" } }, additionalProperties: null },
    { type: "object", properties: [] },
  ];
  for (const schema of others) assert.equal(plainObjectValidator(schema), undefined, JSON.stringify(schema));
});

Deno.test("plainObjectValidator() takes no schema object with a keyword Object.keys does not list (inherited, non-enumerable, a getter), which the engine still reads", () => {
  class Text {
    type = "string";
    get maxLength(): number {
      return 1;
    }
  }
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["an inherited maxLength", {
      type: "object",
      properties: { text: Object.assign(Object.create({ maxLength: 1 }), { type: "string" }) },
    }, { text: "abc" }],
    [
      "a non-enumerable minProperties at the root",
      Object.defineProperty({ type: "object", properties: {} }, "minProperties", {
        value: 1,
      }),
      {},
    ],
    ["a getter on a class", { type: "object", properties: { text: new Text() } }, { text: "abc" }],
  ];
  for (const [label, schema, value] of cases) {
    // The engine alone, on a copy that keeps every own property as it is and the prototype.
    const copy = Object.create(Object.getPrototypeOf(schema), Object.getOwnPropertyDescriptors(schema));
    copy.$comment = "engine only";
    assert.notEqual(compileSchema(copy)(value), undefined, `${label}: the engine refuses`);
    assert.equal(plainObjectValidator(schema), undefined, label);
    assert.notEqual(compileSchema(schema)(value), undefined, `${label}: compileSchema() refuses`);
  }
});

Deno.test("plainObjectValidator() takes the usual tool schema, and a later edit of the schema changes nothing", () => {
  const schema = {
    type: "object",
    properties: { text: { type: "string", description: "what to echo" } },
    required: ["text"],
    additionalProperties: false,
  };
  const validate = plainObjectValidator(schema);
  assert.ok(validate !== undefined);
  schema.properties.text.type = "integer";
  schema.required.push("other");
  schema.additionalProperties = true;
  assert.equal(validate({ text: "hi" }), undefined);
  assert.equal(validate({ text: 1 })?.message, "must be a string (type), got the number 1");
  assert.equal(validate({ text: "hi", other: 1 })?.keyword, "additionalProperties");
});
