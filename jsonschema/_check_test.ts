import assert from "node:assert/strict";
import { all, Failure, PASS, Seen } from "./_check.ts";
import { STATELESS } from "./_compiler.ts";

Deno.test("Failure.at() grows the path outward and clone() copies it apart from the original", () => {
  const failure = new Failure("maximum", "must be at most 1", "got 2").at(3).at("list");
  assert.deepEqual(failure.steps, [3, "list"]);
  const copy = failure.clone();
  failure.at("outer");
  assert.deepEqual(copy.steps, [3, "list"]);
  assert.deepEqual([copy.keyword, copy.rule, copy.detail], ["maximum", "must be at most 1", "got 2"]);
});

Deno.test("all() returns the first failure, in order, for any number of checks", () => {
  const fails = (name: string) => () => new Failure(name, "no");
  for (let n = 0; n <= 5; n++) {
    const checks = Array.from({ length: n }, (_, i) => i === n - 1 ? fails(`k${i}`) : PASS);
    assert.equal(all(checks)(1, STATELESS, undefined)?.keyword, n === 0 ? undefined : `k${n - 1}`);
  }
  assert.equal(all([fails("first"), fails("second")])(1, STATELESS, undefined)?.keyword, "first");
});

Deno.test("Seen records properties and items, and merge() adds another subschema's", () => {
  const a = new Seen();
  a.prop("x");
  a.items = 2;
  const b = new Seen();
  b.prop("y");
  b.contains(5);
  b.items = 1;
  a.merge(b);
  assert.ok(a.hasProp("x") && a.hasProp("y") && !a.hasProp("z"));
  assert.ok(a.hasItem(0) && a.hasItem(1) && a.hasItem(5) && !a.hasItem(2));
  const all = new Seen();
  all.allProps = true;
  all.allItems = true;
  a.merge(all);
  assert.ok(a.hasProp("anything") && a.hasItem(99));
});
