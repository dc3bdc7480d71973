import assert from "node:assert/strict";
import { PolicyInitError } from "./policy_init_error.ts";

Deno.test("PolicyInitError is a TypeError by class and name that carries the refused entry and its reason", () => {
  const cause = new Error("inner");
  const err = new PolicyInitError('Cannot define policy: env name "A-B" is not a valid variable name', {
    setting: "env",
    index: 2,
    entry: "A-B",
    reason: "is not a valid variable name",
    cause,
  });
  assert.ok(err instanceof TypeError);
  assert.equal(String(err), 'TypeError: Cannot define policy: env name "A-B" is not a valid variable name');
  assert.deepEqual([err.setting, err.index, err.entry, err.reason], ["env", 2, "A-B", "is not a valid variable name"]);
  assert.equal(err.cause, cause);
  assert.ok(!("cause" in new PolicyInitError("x", { setting: "limits", entry: "y", reason: "z" })));
});
