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
  const cases: [string, unknown, unknown][] = [
    ["an undefined value", { a: undefined, b: 1 }, { b: 1 }],
    ["a key that is not enumerable", hidden, { a: 1 }],
    ["a Date", { when: new Date(0) }, { when: "1970-01-01T00:00:00.000Z" }],
    ["a non-finite number", { n: NaN, m: Infinity }, { n: null, m: null }],
    ["a function", { f: () => 1, a: 1 }, { a: 1 }],
    ["a class instance", { m: new Map([["k", 1]]) }, { m: {} }],
    ["a hole", { holes }, { holes: [1, null, 3] }],
    ["a toJSON", { t: { toJSON: () => "as text" } }, { t: "as text" }],
  ];
  for (const [label, value, sent] of cases) assert.deepEqual(jsonForm(value), sent, label);
});

Deno.test("jsonForm() refuses a value with no JSON, saying why", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.throws(() => jsonForm({ big: 1n }), /structuredContent has no JSON: .*BigInt/);
  assert.throws(() => jsonForm(cycle), /structuredContent has no JSON: .*circular/i);
  // The walk reads what JSON.stringify() would; what throws there is worded as JSON's own failures are.
  const throwing = {
    get a() {
      throw new Error("getter boom");
    },
  };
  assert.throws(() => jsonForm({ nested: [throwing] }), /structuredContent has no JSON: getter boom/);
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.throws(() => jsonForm({ p: revoked.proxy }), /structuredContent has no JSON: .*revoked/);
});

Deno.test("jsonForm() leaves a named key on an array, uncopied: the check reads an array's items only, as JSON does", () => {
  // Neither JSON nor the outputSchema check reads `note` (dispatch_test.ts, "outputSchema judges ..."), so the walk
  // lists no array's keys: that cost a string per item, more than JSON.stringify() of an array of numbers.
  const value = { list: Object.assign([1, 2], { note: () => "never sent" }) };
  assert.equal(jsonForm(value), value);
  assert.equal(JSON.stringify(value), '{"list":[1,2]}');
  // A hole is still taken through JSON, where it is null.
  assert.deepEqual(jsonForm({ holes: Object.assign([1, , 3], { note: 1 }) }), { holes: [1, null, 3] });
});

Deno.test("jsonForm() takes a value nested past its walk through JSON, stack-safe", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 5000; i++) deep = [deep];
  const sent = jsonForm({ deep }) as { deep: unknown };
  let depth = 0;
  for (let at: unknown = sent.deep; Array.isArray(at); at = at[0]) depth++;
  assert.equal(depth, 5000);
});
