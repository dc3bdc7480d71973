// The examples a doc-test runner must treat as `deno test --doc` does:
// scripts/_doc_tests_test.ts runs them both ways and compares.

/**
 * Twice `n`. An example may use the module's exports without importing them:
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(double(2), 4);
 * ```
 *
 * A relative import resolves against this file:
 *
 * ```ts
 * import assert from "node:assert/strict";
 * import { half } from "./helper.ts";
 * assert.equal(half(double(3)), 3);
 * ```
 *
 * An ignored block never runs, and a block in another language is not code:
 *
 * ```ts ignore
 * throw new Error("ignored");
 * ```
 *
 * ```json
 * { "not": "run" }
 * ```
 */
export function double(n: number): number {
  return n * 2;
}

/**
 * An example that fails when run, and one with tests of its own:
 *
 * ```ts
 * import assert from "node:assert/strict";
 * assert.equal(WRONG, 1, "this example fails on purpose");
 * ```
 *
 * ```ts
 * import assert from "node:assert/strict";
 * Deno.test("a test inside an example", () => assert.equal(double(WRONG), 4));
 * ```
 */
export const WRONG = 2;
