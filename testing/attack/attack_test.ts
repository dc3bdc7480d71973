// test-permissions: --allow-run --allow-read={repo},{tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-env={child-env},FORGE_ATTACK,FORGE_ATTACK_SEED
// test-process: its in-memory attack bounds this process's resident memory, which other files' tests in the process would add to
// The kit finds what it is for: each server in testdata/weak_servers.ts has
// one weakness of a kind published MCP advisories describe, and each is found
// by ground truth (the canary, the listener, the snapshot, the marker); the
// toolkit's own PathJail shows nothing, in both eras, protocol cases included.
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Server } from "@forge/toolkit";
import {
  type AttackCategory,
  type AttackFinding,
  type AttackOptions,
  type AttackReport,
  formatFindings,
} from "./mod.ts";
import { attack, capped } from "./attack.ts";
import type { AttackCase } from "./_case.ts";
import { prng } from "../../internal/prng.ts";
import { inMemoryTarget } from "./in_memory_target.ts";
import type { AttackScope } from "./target.ts";
import * as weak from "./testdata/weak_servers.ts";

/** A temp tree: a root with a file, a notes folder, a database, a folder `repo` (a git repository when `git`). */
async function tree(git = false) {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "attack-test-" }));
  const [root, notes, repo] = ["data", "notes", "repo"].map((d) => join(base, d));
  for (const dir of [root, notes, repo]) await Deno.mkdir(dir);
  await Deno.writeTextFile(join(root, "hello.txt"), "hello");
  const db = join(base, "shop.db");
  const conn = new DatabaseSync(db);
  conn.exec("CREATE TABLE items (name TEXT); INSERT INTO items VALUES ('pen')");
  conn.close();
  // Two git processes a tree: only the test that attacks a git server pays them.
  if (git) {
    const run = (...args: string[]) =>
      new Deno.Command("git", { args: ["-C", repo, ...args], stdout: "null" }).output();
    await run("init", "-q");
    await run("-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "--allow-empty", "-m", "first");
  }
  return { base, root, notes, repo, db, remove: () => Deno.remove(base, { recursive: true }) };
}

/** Attacks `server` in memory in one era, tools only: what a weak-tool test needs. */
function attackTools(server: () => Server, scope: Partial<AttackScope>, options: AttackOptions = {}) {
  return attack(inMemoryTarget(server, { scope }), {
    seed: 7,
    eras: ["2026-07-28"],
    protocol: false,
    shrinkReplays: 0,
    ...options,
  });
}

function found(report: AttackReport, match: Partial<AttackFinding>): AttackFinding {
  const hit = report.findings.find((f) => Object.entries(match).every(([k, v]) => f[k as keyof AttackFinding] === v));
  assert.ok(hit, `no finding like ${JSON.stringify(match)}:\n${formatFindings(report)}`);
  return hit;
}

Deno.test("attack() finds a jail that forgets '..': the canary's secret comes back (CWE-22, MCP02)", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.jailForgetsDotDot(t.root), { read: [t.root] });
  const f = found(report, {
    check: "canary-leak",
    tool: "read_file",
    argument: "path",
    case: "traversal to the canary",
  });
  assert.deepEqual([f.cwe, f.owasp, f.era, f.seed, f.passes], [
    "CWE-22",
    "MCP02:2025 Privilege Escalation via Scope Creep",
    "2026-07-28",
    7,
    true,
  ]);
  await t.remove();
});

Deno.test("attack() finds a jail that compares paths as strings: the sibling folder's canary comes back", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.prefixJail(t.root), { read: [t.root] });
  found(report, { check: "canary-leak", case: "sibling prefix, relative" });
  found(report, { check: "canary-leak", case: "sibling prefix, absolute" });
  assert.ok(!report.findings.some((f) => f.case === "traversal to the canary"), "'..' itself is caught");
  await t.remove();
});

Deno.test("attack() finds a jail that never resolves links: the planted link leads to the canary (CWE-59)", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.linkFollowingJail(t.root), { read: [t.root] });
  assert.equal(found(report, { check: "canary-leak", case: "link to the canary" }).cwe, "CWE-59");
  found(report, { check: "canary-leak", case: "through a linked folder" });
  await assert.rejects(Deno.lstat(join(t.root, "forge-attack-link")), Deno.errors.NotFound, "the link is removed");
  await t.remove();
});

Deno.test("attack() finds a URL check that trusts 0x7f.1: the loopback listener records the hit (CWE-918)", async () => {
  const report = await attackTools(() => weak.urlTrustsHex(), {});
  const f = found(report, { check: "network", tool: "fetch_url", case: "loopback hex 0x7f.1" });
  assert.deepEqual([f.cwe, f.owasp], ["CWE-918", "MCP05:2025 Command Injection & Execution"]);
  found(report, { check: "canary-leak", case: "loopback decimal dword" });
  assert.ok(!report.findings.some((f) => f.case === "loopback"), "the plain form is refused");
});

Deno.test("attack() finds a handler that logs its argument: a forged stderr line (CWE-117, MCP08)", async () => {
  const report = await attackTools(() => weak.logsItsArgument(), {});
  const f = found(report, { check: "log-injection", tool: "lookup", case: "newline forges a log line" });
  assert.deepEqual([f.cwe, f.owasp], ["CWE-117", "MCP08:2025 Lack of Audit and Telemetry"]);
  found(report, { check: "log-injection", case: "carriage return overwrites a line" });
});

Deno.test("attack() reads the log files it is given: a line forged in an audit file is found too", async () => {
  const t = await tree();
  const log = join(t.base, "audit.jsonl");
  const report = await attackTools(() => weak.logsToFile(log), { write: [t.base] }, { logs: [log] });
  found(report, { check: "log-injection", tool: "lookup", case: "CRLF forges a log line" });
  await t.remove();
});

Deno.test("attack() finds a patterns function that does the write: a probe changes the notes folder", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.probeRunsAction(t.notes), { write: [t.notes] });
  const f = found(report, { check: "side-effect", tool: "write_note", case: "probe: the arguments that should pass" });
  assert.deepEqual([f.cwe, f.owasp], ["CWE-862", "MCP07:2025 Insufficient Authentication & Authorization"]);
  assert.match(f.what, /created .*notes\/forge-attack-/);
  assert.ok(!report.findings.some((f) => f.check === "outside-change"), "plain calls may write in the notes folder");
  await t.remove();
});

Deno.test("attack() finds a read-only guard that trusts a SELECT prefix: the database file changes (CWE-89)", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.readOnlyByPrefix(t.db), { read: [t.db] });
  const f = found(report, { check: "outside-change", tool: "run_query", case: "stacked write" });
  assert.equal(f.cwe, "CWE-89");
  assert.match(f.what, /changed .*shop\.db/);
  assert.ok(
    !report.findings.some((f) => f.case === "commit then write"),
    "a statement that does not start with SELECT is refused",
  );
  await t.remove();
});

Deno.test("attack() finds a name pasted into a quoted SQL literal: a UNION selects the secret it never sent whole", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.sqlByConcatenation(t.db), { read: [t.db] });
  const f = found(report, {
    check: "canary-leak",
    tool: "find_item",
    argument: "name",
    case: "quote breaks into a UNION",
  });
  assert.deepEqual([f.cwe, f.owasp], ["CWE-89", "MCP05:2025 Command Injection & Execution"]);
  await t.remove();
});

Deno.test("attack() reports no forged line for a plain Error carrying its argument: the toolkit's log escapes it", async () => {
  // In memory as over real stderr: the "failed (ref …)" line quotes the error, its line breaks escaped.
  const report = await attackTools(() => weak.plainErrorWithArgument(), {});
  assert.ok(report.tools[0].reachHandler > 5, JSON.stringify(report.tools));
  assert.deepEqual(report.findings, [], formatFindings(report));
});

Deno.test("attack() finds option injection into git and a hostile repository config it obeys", async () => {
  const t = await tree(true);
  const report = await attackTools(() => weak.gitAsGiven(t.repo), { read: [t.repo] }, { repositories: [t.repo] });
  const option = found(report, { check: "outside-change", tool: "git_log", case: "output option" });
  assert.equal(option.cwe, "CWE-88");
  assert.match(option.what, /created .*forge-attack-.*\/output-/);
  const config = found(report, { check: "config-ran", tool: "git_status" });
  assert.match(config.what, /git ran "fsmonitor"/);
  assert.deepEqual([config.cwe, config.owasp], ["CWE-15", "MCP05:2025 Command Injection & Execution"]);
  assert.ok(!(await Deno.readTextFile(join(t.repo, ".git", "config"))).includes("fsmonitor"), "the config is restored");
  await t.remove();
});

Deno.test("attack() finds an error message that names a host path outside the roots (CWE-209, MCP10)", async () => {
  const t = await tree();
  const report = await attackTools(() => weak.hostPathInError(t.root), { read: [t.root] });
  const f = found(report, { check: "host-path", case: "dot-dot" });
  assert.ok(f.what.includes(t.base) && !f.what.includes(t.root), f.what);
  await t.remove();
});

Deno.test("attack() finds a merge that pollutes Object.prototype through a constructor key (CWE-1321)", async () => {
  const report = await attackTools(() => weak.mergesOptions(), {});
  found(report, { check: "prototype-pollution", tool: "render", case: "constructor key" });
  assert.equal(({} as Record<string, unknown>).polluted, undefined, "the kit removed what the server planted");
});

Deno.test("attack() shows nothing on the toolkit's PathJail, in both eras, protocol cases included", async () => {
  const t = await tree();
  const report = await attack(inMemoryTarget(() => weak.soundJail(t.root), { scope: { read: [t.root] } }), {
    seed: 11,
  });
  assert.deepEqual(report.findings, [], formatFindings(report));
  assert.deepEqual(report.eras, ["2026-07-28", "2025-11-25"]);
  const [tool] = report.tools;
  assert.equal(tool.name, "read_file");
  assert.ok(tool.reachHandler > 20 && tool.reachHandler < tool.cases, JSON.stringify(tool));
  assert.ok(report.cases > tool.cases, "protocol cases ran too");
  await t.remove();
});

Deno.test("one seed gives the same findings in the same order; the report names the seed", async () => {
  const t = await tree();
  const run = async () => (await attackTools(() => weak.jailForgetsDotDot(t.root), { read: [t.root] })).findings;
  const [a, b] = [await run(), await run()];
  assert.deepEqual(a.map((f) => [f.case, f.check]), b.map((f) => [f.case, f.check]));
  await t.remove();
});

Deno.test("capped() keeps at most its share of argument cases, every category represented, and every probe", () => {
  const c = (category: AttackCategory, kind: AttackCase["kind"], n: number): AttackCase => ({
    tag: `${category}${n}`,
    kind,
    title: `${category} ${n}`,
    category,
    steps: [],
    expect: [],
  });
  const cases = [
    ...Array.from({ length: 10 }, (_, i) => c("path", "argument", i)),
    ...Array.from({ length: 3 }, (_, i) => c("log", "argument", i)),
    c("url", "argument", 0),
    c("path", "probe", 0),
  ];
  const kept = capped(cases, 6, prng(1));
  assert.equal(kept.filter((k) => k.kind === "argument").length, 6);
  assert.deepEqual(new Set(kept.map((k) => k.category)), new Set(["path", "log", "url"]));
  assert.ok(kept.some((k) => k.kind === "probe"));
  assert.equal(capped(cases, undefined, prng(1)), cases);
});
