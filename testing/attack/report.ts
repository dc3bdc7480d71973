import type { AttackEra, AttackTranscript } from "./_case.ts";
import type { AttackCheck } from "./_judge.ts";
import type { AttackCategory } from "./corpus.ts";

/**
 * One finding: what was checked and seen, for which case, tool, argument
 * and era, with its CWE and OWASP MCP Top 10 class, and the transcript that
 * makes it happen again (shrunk when it could be).
 */
export interface AttackFinding {
  /** What was checked. */
  check: AttackCheck;
  /** What happened, in a sentence. */
  what: string;
  /** The protocol era of the surface it happened on. */
  era: AttackEra;
  /** The run's seed. */
  seed: number;
  /** The case's title (the hostile value's name, or the protocol abuse). */
  case: string;
  /** What the value aimed at, or `protocol`. */
  category: AttackCategory | "protocol";
  /** The tool called, if any. */
  tool?: string;
  /** The argument that carried the hostile value, if one did. */
  argument?: string;
  /** Whether the arguments passed the tool's schema (reached the handler). */
  passes?: boolean;
  /** A CWE id, e.g. `CWE-22`. */
  cwe: string;
  /** An OWASP MCP Top 10 (2025) class, e.g. `MCP02:2025 Privilege Escalation via Scope Creep`. */
  owasp: string;
  /** The lines that make it happen. */
  transcript: AttackTranscript;
  /** `alone`: a fresh server shows it from the transcript; `in sequence`: only after the cases before it; `not replayed`. */
  reproduced: "alone" | "in sequence" | "not replayed";
  /** The note of the known-failure entry it matched, when it did. */
  known?: string;
}

/**
 * An entry of the known-failures list: a finding that matches every field
 * given is reported as known and does not fail the run, so a project can
 * adopt the kit before it fixes everything. Say why in `note`.
 *
 * @example Accept one finding while it is being fixed
 * ```ts
 * import type { KnownFailure } from "@forge/toolkit/testing";
 *
 * const known: KnownFailure = { check: "host-path", tool: "read_file", note: "names the resolved path; fix in #12" };
 * ```
 */
export interface KnownFailure {
  /** The check. */
  check?: AttackCheck;
  /** The tool. */
  tool?: string;
  /** The argument. */
  argument?: string;
  /** The case title. */
  case?: string;
  /** The era. */
  era?: AttackEra;
  /** Why it is accepted for now. */
  note: string;
}

/** Time and counts for one tool over all eras. */
export interface AttackToolStats {
  /** The tool. */
  name: string;
  /** Cases sent. */
  cases: number;
  /** Of them, cases whose arguments passed the schema, so they reached the handler. */
  reachHandler: number;
  /** Milliseconds spent on its cases, judging included. */
  ms: number;
}

/** What `attack()` did and found. */
export interface AttackReport {
  /** The target's name. */
  target: string;
  /** The seed: pass it back (`seed`, or `FORGE_ATTACK_SEED`) to run the same cases in the same order. */
  seed: number;
  /** The eras attacked, each as its own surface. */
  eras: AttackEra[];
  /** The corpus size. */
  corpus: "default" | "large";
  /** Per tool. */
  tools: AttackToolStats[];
  /** Cases sent in all. */
  cases: number;
  /** Milliseconds in all. */
  ms: number;
  /** Findings not on the known-failures list: any of them fails `assertNoFindings`. */
  findings: AttackFinding[];
  /** Findings the known-failures list accepts. */
  known: AttackFinding[];
  /** Known-failure entries no finding matched: the weakness is gone, remove them. */
  stale: KnownFailure[];
  /** What the kit could not do (a root it could not plant in, memory it could not read). */
  notes: string[];
}

function cell(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ");
  return flat.length > width ? flat.slice(0, width - 1) + "…" : flat;
}

/**
 * The findings as a table: case, tool, argument, what happened, with the
 * seed and era of each, then the known and stale entries.
 *
 * @param report The report.
 * @returns Text, one finding per row; `no findings` when there is none.
 *
 * @example Print the findings
 * ```ts ignore
 * import { attack, formatFindings } from "@forge/toolkit/testing";
 *
 * console.log(formatFindings(await attack(target)));
 * ```
 */
export function formatFindings(report: AttackReport): string {
  const head = `attack ${report.target}: seed ${report.seed}, eras ${report.eras.join(" + ")}, ` +
    `${report.corpus} corpus, ${report.cases} cases in ${(report.ms / 1000).toFixed(1)} s`;
  const rows = (list: AttackFinding[]) =>
    list.map((f, i) =>
      `| ${i + 1} | ${f.era} | ${cell(f.case, 36)} | ${f.tool ?? "—"} | ${f.argument ?? "—"} | ${f.check} | ` +
      `${cell(f.what, 90)} | ${f.cwe} |`
    );
  const table = (list: AttackFinding[]) => [
    "| # | era | case | tool | argument | check | what happened | CWE |",
    "| - | --- | ---- | ---- | -------- | ----- | ------------- | --- |",
    ...rows(list),
  ];
  const out = [head];
  out.push(report.findings.length === 0 ? "no findings" : `${report.findings.length} findings:`);
  if (report.findings.length > 0) out.push(...table(report.findings));
  if (report.known.length > 0) {
    out.push(`${report.known.length} known (accepted by the known-failures list):`, ...table(report.known));
  }
  for (const stale of report.stale) {
    out.push(`stale known-failure entry (nothing matched it): ${JSON.stringify(stale)}`);
  }
  for (const note of report.notes) out.push(`note: ${note}`);
  return out.join("\n");
}

/** Whether `finding` matches `entry`. */
export function matchesKnown(finding: AttackFinding, entry: KnownFailure): boolean {
  return (entry.check === undefined || entry.check === finding.check) &&
    (entry.tool === undefined || entry.tool === finding.tool) &&
    (entry.argument === undefined || entry.argument === finding.argument) &&
    (entry.case === undefined || entry.case === finding.case) &&
    (entry.era === undefined || entry.era === finding.era);
}
