// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env}
// Protocol abuse over real stdio: testdata/naive_server.ts is a server written
// without the toolkit, with the faults hand-written servers have; the kit
// finds each of them.
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { type AttackFinding, type AttackReport, formatFindings } from "./mod.ts";
import { attack } from "./attack.ts";
import { flagPaths, subprocessTarget } from "./subprocess_target.ts";

const NAIVE = fileURLToPath(new URL("./testdata/naive_server.ts", import.meta.url));

function has(report: AttackReport, match: Partial<AttackFinding>): void {
  const hit = report.findings.some((f) => Object.entries(match).every(([k, v]) => f[k as keyof AttackFinding] === v));
  assert.ok(hit, `no finding like ${JSON.stringify(match)}:\n${formatFindings(report)}`);
}

Deno.test("a naive server over real stdio: every fault it has is found, in the initialize era", async () => {
  // A short deadline: the naive server never answers some requests, and each wait costs it.
  const report = await attack(subprocessTarget({ args: [NAIVE] }), {
    seed: 3,
    eras: ["2025-11-25"],
    deadlineMs: 500,
    closeGraceMs: 300,
    maxRssBytes: 96 << 20,
    shrinkReplays: 0,
  });
  // Answers that come after a case's deadline are judged with a later case: the checks, not the cases, are fixed.
  has(report, { check: "served-variant", cwe: "CWE-178" });
  assert.ok(report.findings.some((f) => f.check === "served-invalid" && /before initialize/.test(f.what)));
  has(report, { check: "no-reply", case: "id 2^53+1" });
  has(report, { check: "unexpected-reply" });
  has(report, { check: "no-reply", case: 'method "resources/read"' });
  has(report, { check: "not-json", case: "initialize and tools/list" });
  has(report, { check: "no-reply", case: "calls while stderr is not read" });
  has(report, { check: "memory" });
  has(report, { check: "exit", case: "end of input" });
});

Deno.test("flagPaths() reads a server's scope from its permission flags, relative to its folder", () => {
  const args = ["--allow-read=data,/etc/app.json", "--allow-write=out", "--allow-net", "main.ts"];
  assert.deepEqual(flagPaths(args, "--allow-read", "/srv"), ["/srv/data", "/etc/app.json"]);
  assert.deepEqual(flagPaths(args, "--allow-write", "/srv"), ["/srv/out"]);
  assert.deepEqual(flagPaths(["--allow-write", "main.ts"], "--allow-write", "/srv"), ["/"]);
  assert.deepEqual(flagPaths(args, "--allow-run", "/srv"), []);
});
