import assert from "node:assert/strict";
import { ValueIds } from "./_value_ids.ts";

Deno.test("ValueIds numbers equal JSON alike: key order, 1 and 1.0, undefined members and NaN as JSON would carry them", () => {
  const ids = new ValueIds();
  const same: [unknown, unknown][] = [
    [{ a: 1, b: [true, null] }, { b: [true, null], a: 1.0 }],
    [[0], [-0]],
    [{ a: 1, gone: undefined }, { a: 1 }],
    [[undefined], [null]],
    [[Number.NaN], [null]],
    [JSON.parse('{"__proto__": {"x": 1}}'), JSON.parse('{"__proto__": {"x": 1}}')],
    ["x".repeat(100_000), "x".repeat(100_000)],
  ];
  for (const [a, b] of same) assert.equal(ids.of(a), ids.of(b), JSON.stringify(a)?.slice(0, 40));
  const differ: [unknown, unknown][] = [
    [1, "1"],
    [0, false],
    [null, "null"],
    [[1, 2], [2, 1]],
    [{ a: 1 }, { a: 1, b: 2 }],
    [{ a: [1] }, { a: [[1]] }],
    [[], {}],
    [{ "1": 2 }, [2]],
    [JSON.parse('{"__proto__": 1}'), {}],
  ];
  for (const [a, b] of differ) assert.notEqual(ids.of(a), ids.of(b), `${JSON.stringify(a)} ${JSON.stringify(b)}`);
});

Deno.test("ValueIds numbers a value nested 100,000 deep without running out of stack, and refuses one that holds itself", () => {
  const ids = new ValueIds();
  let a: unknown = 1;
  let b: unknown = 1;
  for (let i = 0; i < 100_000; i++) [a, b] = [[a], [b]];
  assert.equal(ids.of(a), ids.of(b));
  const loop: unknown[] = [1];
  loop.push([loop]);
  assert.throws(() => new ValueIds().of(loop), { name: "TypeError", message: /refers to itself/ });
  // The same object twice is no loop.
  const shared = { x: 1 };
  const fresh = new ValueIds();
  assert.equal(fresh.of([shared, shared]), fresh.of([{ x: 1 }, { x: 1 }]));
});
