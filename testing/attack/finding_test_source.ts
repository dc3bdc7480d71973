import type { AttackFinding } from "./report.ts";

function quote(text: string): string {
  // JSON's escapes are valid TypeScript; single quotes read better when nothing needs escaping.
  const json = JSON.stringify(text);
  const plain = json.slice(1, -1).replaceAll('\\"', '"') === text && !text.includes("'");
  return plain ? `'${text}'` : json;
}

/**
 * A finding as a Deno test to paste into the server's tests: its wire lines
 * in a comment, and a `replay()` of its transcript that fails while the
 * weakness is there. `target` in the test is the target the run attacked.
 *
 * @param finding The finding.
 * @returns TypeScript source of one `Deno.test`.
 *
 * @example Print each finding as a test
 * ```ts ignore
 * import { attack, findingTestSource } from "@forge/toolkit/testing";
 *
 * for (const finding of (await attack(target)).findings) console.log(findingTestSource(finding));
 * ```
 */
export function findingTestSource(finding: AttackFinding): string {
  const t = finding.transcript;
  const where = [finding.tool, finding.argument].filter(Boolean).join(" ");
  const name = `${finding.check}: ${where ? where + ", " : ""}${finding.case} (${finding.era}, seed ${finding.seed})`;
  const steps = t.steps.map((s) => {
    const extra = s.repeat === undefined ? "" : `, repeat: ${s.repeat}, from: ${s.from ?? 0}`;
    return `      { line: ${quote(s.line)}${extra} },`;
  });
  const fields = [
    `era: ${JSON.stringify(t.era)}`,
    `title: ${JSON.stringify(t.title)}`,
    `expect: ${JSON.stringify(t.expect)}`,
    ...(t.batch ? [`batch: ${JSON.stringify(t.batch)}`] : []),
    ...(t.pause ? [`pause: ${JSON.stringify(t.pause)}`] : []),
    ...(t.inert ? ["inert: true"] : []),
    ...(t.refuse ? [`refuse: ${JSON.stringify(t.refuse)}`] : []),
  ];
  const handshake = t.era === "2026-07-28" ? "" : " (after initialize)";
  return [
    `// ${finding.what}. ${finding.cwe}, ${finding.owasp}; reproduced: ${finding.reproduced}.`,
    `// Wire${handshake}: ${t.steps.map((s) => s.line.length > 200 ? s.line.slice(0, 200) + "…" : s.line).join(" ⏎ ")}`,
    `Deno.test(${JSON.stringify(name)}, async () => {`,
    `  const findings = await replay(target, {`,
    `    ${fields.join(",\n    ")},`,
    `    steps: [`,
    ...steps,
    `    ],`,
    `  });`,
    `  assert.deepEqual(findings.map((f) => f.what), []);`,
    `});`,
  ].join("\n");
}
