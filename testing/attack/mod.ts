/**
 * Attack your own server: every tool it lists, in each protocol era, with
 * arguments derived from its schemas and with protocol abuse, judged by
 * canaries the kit plants (a secret file and database outside the policy, a
 * loopback listener, a log marker) and by snapshots of the server's folders
 * before and after every case.
 *
 * ```ts ignore
 * import { addTool, requireString, schema, Server, strProp, text } from "@forge/toolkit";
 * import { assertNoFindings, attack, inMemoryTarget } from "@forge/toolkit/testing";
 *
 * const target = inMemoryTarget(() => {
 *   const server = new Server({ name: "hello" });
 *   addTool(server, {
 *     name: "hello",
 *     description: "Greets someone",
 *     inputSchema: schema({ name: strProp("Who") }, ["name"]),
 *     annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *   }, (req) => text(`Hello, ${requireString(req.arguments, "name").length} characters`));
 *   return server;
 * });
 * assertNoFindings(await attack(target, { seed: 1 }));
 * ```
 *
 * @module
 */
export { attack, type AttackOptions } from "./attack.ts";
export { ATTACK_VALUES } from "./attack_values.ts";
export { assertNoFindings } from "./assert_no_findings.ts";
export type { AttackEra, AttackStep, AttackTranscript } from "./_case.ts";
export type { AttackCheck } from "./_judge.ts";
export { type AttackCategory, attackString, type AttackValue, type AttackValueFor } from "./corpus.ts";
export { findingTestSource } from "./finding_test_source.ts";
export { inMemoryTarget, type InMemoryTargetOptions } from "./in_memory_target.ts";
export { replay, type ReplayOptions } from "./replay.ts";
export {
  type AttackFinding,
  type AttackReport,
  type AttackToolStats,
  formatFindings,
  type KnownFailure,
} from "./report.ts";
export { type SarifLog, toSarif } from "./sarif.ts";
export { subprocessTarget, type SubprocessTargetOptions } from "./subprocess_target.ts";
export type { AttackConnection, AttackScope, AttackTarget, AttackWorld } from "./target.ts";
