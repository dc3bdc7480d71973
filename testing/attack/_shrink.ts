// Makes each finding as small as it can be: replayed alone on a fresh
// server, then with only the hostile argument, then with its repeated text
// cut by 16, keeping each step that still shows the same check.
import { argsWith } from "./_arguments.ts";
import { type AttackCase, type AttackTranscript, callLine } from "./_case.ts";
import type { AttackOptions } from "./attack.ts";
import { replay } from "./replay.ts";
import type { AttackFinding } from "./report.ts";
import type { AttackTarget } from "./target.ts";

async function shows(
  target: AttackTarget,
  transcript: AttackTranscript,
  finding: AttackFinding,
  options: AttackOptions,
): Promise<boolean> {
  const found = await replay(target, transcript, { ...options, seed: finding.seed });
  return found.some((f) => f.check === finding.check);
}

function fewerRepeats(transcript: AttackTranscript): AttackTranscript | undefined {
  let changed = false;
  const steps = transcript.steps.map((step) => ({
    ...step,
    line: step.line.replace(/@@repeat:(\d+):/g, (whole, n: string) => {
      if (Number(n) < 4096) return whole;
      changed = true;
      return `@@repeat:${Math.floor(Number(n) / 16)}:`;
    }),
  }));
  return changed ? { ...transcript, steps } : undefined;
}

/** Replays and shrinks `items` in place, starting at most `budget` fresh servers. */
export async function shrinkAll(
  target: AttackTarget,
  items: { finding: AttackFinding; case: AttackCase }[],
  options: AttackOptions,
  budget: number,
): Promise<void> {
  for (const { finding, case: c } of items) {
    if (budget-- <= 0) return;
    if (!(await shows(target, finding.transcript, finding, options))) {
      finding.reproduced = "in sequence";
      continue;
    }
    finding.reproduced = "alone";
    const call = c.call;
    if (call?.argument !== undefined && call.value !== undefined && budget-- > 0) {
      const args = argsWith({}, call.argument, call.value);
      const line = callLine(finding.era, c.expect[0], call.tool, args, call.probe);
      const smaller = { ...finding.transcript, steps: [{ line }] };
      if (args !== call.args && await shows(target, smaller, finding, options)) finding.transcript = smaller;
    }
    const cut = fewerRepeats(finding.transcript);
    if (cut && budget-- > 0 && await shows(target, cut, finding, options)) finding.transcript = cut;
  }
}
