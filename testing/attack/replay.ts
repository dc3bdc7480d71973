import type { AttackCase, AttackTranscript } from "./_case.ts";
import { settingsFor } from "./_settings.ts";
import { Surface } from "./_surface.ts";
import { createWorld } from "./_world.ts";
import { type AttackOptions, findingOf, watching } from "./attack.ts";
import type { AttackFinding } from "./report.ts";
import type { AttackTarget } from "./target.ts";

/** Options of {@linkcode replay}: the same as the run's, where they apply. */
export type ReplayOptions = Pick<
  AttackOptions,
  | "deadlineMs"
  | "maxRssBytes"
  | "watch"
  | "writable"
  | "plant"
  | "repositories"
  | "logs"
  | "maxWatchedEntries"
  | "closeGraceMs"
  | "seed"
>;

/**
 * Runs one transcript on a fresh server, with fresh canaries, and judges it
 * as `attack()` does. A finding's printed test calls it, so the test fails
 * while the weakness is there and passes once it is fixed.
 *
 * @param target The same target the finding came from.
 * @param transcript The finding's transcript.
 * @param options See {@linkcode ReplayOptions}.
 * @returns The findings (none when the weakness is gone).
 *
 * @example Replay a finding's transcript
 * ```ts ignore
 * import { replay } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const findings = await replay(target, {
 *   era: "2026-07-28",
 *   title: "traversal to the canary",
 *   steps: [{ line: '{"jsonrpc":"2.0","id":7,"method":"tools/call",...}' }],
 *   expect: ["7"],
 * });
 * assert.deepEqual(findings.map((f) => f.what), []);
 * ```
 */
export async function replay(
  target: AttackTarget,
  transcript: AttackTranscript,
  options: ReplayOptions = {},
): Promise<AttackFinding[]> {
  const world = await createWorld();
  const notes: string[] = [];
  const c: AttackCase = {
    ...transcript,
    tag: "r1",
    kind: "protocol",
    category: "protocol",
  };
  try {
    const w = watching(options);
    const { surface } = await Surface.open(
      target,
      world,
      transcript.era,
      (scope) => settingsFor(world, scope, w, target.inProcess === true, notes),
    );
    const verdicts = await surface.run(c);
    verdicts.push(...await surface.close(options.closeGraceMs ?? 10_000));
    return verdicts.map((v) => findingOf(v, c, transcript.era, options.seed ?? 0));
  } finally {
    await world.dispose();
  }
}
