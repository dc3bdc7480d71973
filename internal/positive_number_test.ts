import assert from "node:assert/strict";
import { positive } from "./positive_number.ts";

Deno.test("positive() passes a positive number, falls back on undefined and refuses the rest by name", () => {
  assert.equal(positive(undefined, 5, "maxDepth", "serve"), 5);
  assert.equal(positive(7, 5, "maxDepth", "serve"), 7);
  for (const bad of [0, -1, Number.NaN, Infinity]) {
    assert.throws(
      () => positive(bad, 5, "maxDepth", "serve"),
      RangeError,
      `Cannot serve: maxDepth must be a positive number, got ${bad}`,
    );
  }
});

Deno.test("positive() names what the number counts when given a unit", () => {
  assert.throws(
    () => positive(Number.NaN, 5, "stderrTimeoutMs", "create the audit trail", "milliseconds"),
    RangeError,
    "Cannot create the audit trail: stderrTimeoutMs must be a positive number of milliseconds, got NaN",
  );
  assert.equal(positive(250, 5, "stderrTimeoutMs", "create the audit trail", "milliseconds"), 250);
});
