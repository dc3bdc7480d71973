import assert from "node:assert/strict";
import { jsonForm } from "./_json_form.ts";

Deno.test("jsonForm() returns a value already as its JSON reads back, uncopied", () => {
  const value = { a: "x", n: [1, 2.5, -0, null, true], nested: { deep: [{ k: "v" }] }, bare: Object.create(null) };
  assert.equal(jsonForm(value), value);
});

Deno.test("jsonForm() turns what JSON changes or drops into what the client reads", () => {
  const hidden = { a: 1 };
  Object.defineProperty(hidden, "b", { value: 2, enumerable: false });
  const holes = [1, , 3];
  const extra = Object.assign([1], { note: "dropped" });
  const cases: [string, unknown, unknown][] = [
    ["an undefined value", { a: undefined, b: 1 }, { b: 1 }],
    ["a key that is not enumerable", hidden, { a: 1 }],
    ["a Date", { when: new Date(0) }, { when: "1970-01-01T00:00:00.000Z" }],
    ["a non-finite number", { n: NaN, m: Infinity }, { n: null, m: null }],
    ["a function", { f: () => 1, a: 1 }, { a: 1 }],
    ["a class instance", { m: new Map([["k", 1]]) }, { m: {} }],
    ["a hole", { holes }, { holes: [1, null, 3] }],
    ["an array's extra key", { extra }, { extra: [1] }],
    ["a toJSON", { t: { toJSON: () => "as text" } }, { t: "as text" }],
  ];
  for (const [label, value, sent] of cases) assert.deepEqual(jsonForm(value), sent, label);
});

Deno.test("jsonForm() refuses a value with no JSON, saying why", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => jsonForm({ big: 1n }), /structuredContent has no JSON: .*BigInt/);
  assert.throws(() => jsonForm(cycle), /structuredContent has no JSON: .*circular/i);
});

Deno.test("jsonForm() takes a value nested past its walk through JSON, stack-safe", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 5000; i++) deep = [deep];
  const sent = jsonForm({ deep }) as { deep: unknown };
  let depth = 0;
  for (let at: unknown = sent.deep; Array.isArray(at); at = at[0]) depth++;
  assert.equal(depth, 5000);
});
