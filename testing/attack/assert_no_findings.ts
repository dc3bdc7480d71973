import { AssertionError } from "node:assert";
import { findingTestSource } from "./finding_test_source.ts";
import { type AttackReport, formatFindings } from "./report.ts";

/**
 * Fails when the report has findings that the known-failures list does not
 * accept: the error message holds the table, then each finding as a test to
 * paste. Known findings and stale known-failure entries do not fail it.
 *
 * @param report What `attack()` returned.
 * @throws {AssertionError} When there are findings.
 *
 * @example One line in a server's tests
 * ```ts ignore
 * import { assertNoFindings, attack } from "@forge/toolkit/testing";
 *
 * Deno.test("the server survives the attack kit", async () => {
 *   assertNoFindings(await attack(target));
 * });
 * ```
 */
export function assertNoFindings(report: AttackReport): void {
  if (report.findings.length === 0) return;
  const tests = report.findings.map(findingTestSource).join("\n\n");
  throw new AssertionError({
    message: `${formatFindings(report)}\n\nEach finding as a test (target: the one attacked; ` +
      `import { replay } from "@forge/toolkit/testing"):\n\n${tests}`,
  });
}
