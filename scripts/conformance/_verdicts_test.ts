// How the conformance run reads a scenario's checks (_verdicts.ts): a
// warning (a SHOULD the suite checks) does not fail a scenario, but is never
// hidden either.
import assert from "node:assert/strict";
import { KNOWN_WARNINGS, verdictOf } from "./_verdicts.ts";

Deno.test("a passing scenario names each warning it had, with the reason when it is known", () => {
  const known = verdictOf({
    scenario: "input-required-result-ignore-extra-params",
    checks: [
      { id: "sep-2322-ignore-unexpected-params", status: "WARNING", errorMessage: "did not complete" },
      { id: "wire-schema-valid", status: "SUCCESS" },
    ],
  });
  assert.equal(known.verdict, "pass");
  assert.equal(known.warnings, 1);
  const why = KNOWN_WARNINGS["input-required-result-ignore-extra-params:sep-2322-ignore-unexpected-params"];
  assert.equal(known.note, `2 checks; warning sep-2322-ignore-unexpected-params: ${why}`);

  const unknown = verdictOf({
    scenario: "tools-list",
    checks: [{ id: "a", status: "WARNING" }, { id: "a", status: "WARNING" }, { id: "b", status: "SUCCESS" }],
  });
  assert.deepEqual([unknown.verdict, unknown.warnings, unknown.note], ["pass", 1, "3 checks; warning a: unexplained"]);

  const clean = verdictOf({ scenario: "ping", checks: [{ id: "ping", status: "SUCCESS" }] });
  assert.deepEqual([clean.verdict, clean.warnings, clean.note], ["pass", 0, "1 checks"]);
});

Deno.test("a failure still fails beside a warning, and a not-applicable scenario stays so", () => {
  const failed = verdictOf({
    scenario: "tools-list",
    checks: [{ id: "a", status: "WARNING" }, { id: "b", status: "FAILURE" }],
  });
  assert.deepEqual([failed.verdict, failed.note], ["fail", "b"]);
  const na = verdictOf({ scenario: "prompts-list", checks: [{ id: "x", status: "FAILURE" }] });
  assert.equal(na.verdict, "n/a");
});
