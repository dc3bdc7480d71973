import type { AttackFinding, AttackReport } from "./report.ts";

const INFO = "https://jsr.io/@forge/toolkit/doc/testing";

/** A SARIF 2.1.0 log, as plain JSON. */
export type SarifLog = Record<string, unknown>;

function rule(f: AttackFinding): Record<string, unknown> {
  const cwe = f.cwe.replace("CWE-", "");
  return {
    id: `${f.check}/${f.cwe}`,
    name: f.check,
    shortDescription: { text: `${f.check} (${f.cwe})` },
    helpUri: `https://cwe.mitre.org/data/definitions/${cwe}.html`,
    properties: { tags: ["security", `external/cwe/cwe-${cwe}`, `owasp-mcp-top-10/${f.owasp.slice(0, 5)}`] },
  };
}

function result(f: AttackFinding, target: string): Record<string, unknown> {
  return {
    ruleId: `${f.check}/${f.cwe}`,
    level: "error",
    message: { text: `${f.what} (case "${f.case}", ${f.era}, seed ${f.seed})` },
    locations: [{
      logicalLocations: [{
        name: f.tool ?? "(protocol)",
        fullyQualifiedName: `${target}/${f.tool ?? "protocol"}`,
        kind: "function",
      }],
    }],
    partialFingerprints: { forgeAttack: [f.check, f.tool, f.argument, f.case, f.era].join("/") },
    properties: {
      era: f.era,
      seed: f.seed,
      case: f.case,
      category: f.category,
      ...(f.argument === undefined ? {} : { argument: f.argument }),
      cwe: f.cwe,
      owasp: f.owasp,
      reproduced: f.reproduced,
      transcript: f.transcript,
    },
    ...(f.known === undefined ? {} : { suppressions: [{ kind: "external", justification: f.known }] }),
  };
}

/**
 * The report as a SARIF 2.1.0 log for code-scanning tools: one rule per
 * check and CWE (tagged `external/cwe/cwe-N` and with the OWASP MCP Top 10
 * class), one result per finding with its era, seed and transcript; known
 * findings are results with an external suppression carrying the note.
 *
 * @param report What `attack()` returned.
 * @returns The SARIF log; write it with `JSON.stringify`.
 *
 * @example Write SARIF for CI
 * ```ts ignore
 * import { attack, toSarif } from "@forge/toolkit/testing";
 *
 * await Deno.writeTextFile("attack.sarif", JSON.stringify(toSarif(await attack(target)), null, 2));
 * ```
 */
export function toSarif(report: AttackReport): SarifLog {
  const all = [...report.findings, ...report.known];
  const rules = new Map(all.map((f) => [`${f.check}/${f.cwe}`, rule(f)]));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [{
      tool: { driver: { name: "forge-attack", informationUri: INFO, rules: [...rules.values()] } },
      results: all.map((f) => result(f, report.target)),
      invocations: [{
        executionSuccessful: true,
        properties: {
          target: report.target,
          seed: report.seed,
          eras: report.eras,
          corpus: report.corpus,
          cases: report.cases,
        },
      }],
    }],
  };
}
