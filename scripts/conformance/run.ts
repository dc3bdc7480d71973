// `deno task conformance`: runs the official MCP conformance suite against
// the conformance fixture (fixture.ts) behind the bridge (bridge.ts), on both
// wires, and prints one line per scenario and one summary line.
//
// The pinned suites are installed with npm into a cache outside the checkout
// (`$TMPDIR/forge-conformance/<version>`, `--cache DIR` to move it): this
// needs the npm registry, so it is not part of the default gate. The suite is
// Node code; it runs under Deno (its bundle needs Node 22's fs.globSync,
// which Deno has) with the network limited to loopback.

import { join } from "node:path";
import { startBridge } from "./bridge.ts";
import { type Outcome, type Verdict, verdictOf, WAITING } from "./_verdicts.ts";
import { fileURLToPath } from "node:url";

/** The suite that speaks the initialize-era wire. */
const LEGACY_SUITE = "0.1.16";
/** The suite that speaks 2026-07-28 and the tasks extension. */
const MODERN_SUITE = "0.2.0-alpha.12";
/** The extension scenarios, run one by one (the suite leaves them out of a version's run). */
const TASK_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

const here = fileURLToPath(new URL(".", import.meta.url));
const cacheAt = Deno.args.indexOf("--cache");
const cache = cacheAt >= 0 ? Deno.args[cacheAt + 1] : join(Deno.env.get("TMPDIR") ?? "/tmp", "forge-conformance");

/** Installs one pinned suite (once) and returns the path of its entry point. */
async function install(version: string): Promise<string> {
  const prefix = join(cache, version);
  const entry = join(prefix, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
  try {
    await Deno.stat(entry);
    return entry;
  } catch {
    // Not installed yet.
  }
  await Deno.mkdir(prefix, { recursive: true });
  await Deno.writeTextFile(join(prefix, "package.json"), '{"private":true}\n');
  const out = await new Deno.Command("npm", {
    args: ["install", "--no-audit", "--no-fund", "--prefix", prefix, `@modelcontextprotocol/conformance@${version}`],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`Cannot install @modelcontextprotocol/conformance@${version}: npm failed`);
  return entry;
}

/** Runs the suite once and returns the outcome of every scenario it recorded. */
async function runSuite(entry: string, url: string, args: string[]): Promise<Outcome[]> {
  const out = await Deno.makeTempDir({ prefix: "forge-conformance-results-" });
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1,localhost",
      "--allow-read",
      `--allow-write=${out}`,
      "--allow-env",
      "--allow-sys",
      entry,
      "server",
      "--url",
      url,
      "-o",
      out,
      ...args,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const outcomes: Outcome[] = [];
  for await (const dir of Deno.readDir(out)) {
    const scenario = dir.name.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    const checks = JSON.parse(await Deno.readTextFile(join(out, dir.name, "checks.json")));
    outcomes.push({ scenario, checks });
  }
  await Deno.remove(out, { recursive: true });
  if (outcomes.length === 0) {
    throw new Error(`The suite recorded no scenario: ${new TextDecoder().decode(result.stderr).slice(0, 2000)}`);
  }
  return outcomes.sort((a, b) => a.scenario.localeCompare(b.scenario));
}

function print(wire: string, verdicts: Verdict[]): Record<Verdict["verdict"], number> {
  const counts = { pass: 0, fail: 0, "n/a": 0 };
  for (const v of verdicts) {
    counts[v.verdict]++;
    console.log(`${wire}  ${v.verdict.padEnd(4)}  ${v.scenario.padEnd(46)}  ${v.note}`);
  }
  return counts;
}

const [legacyEntry, modernEntry] = [await install(LEGACY_SUITE), await install(MODERN_SUITE)];
const childLog = await Deno.makeTempFile({ prefix: "forge-conformance-fixture-", suffix: ".log" });
const bridgeNotes: string[] = [];
const bridge = await startBridge({
  command: [Deno.execPath(), "run", "--quiet", "--no-prompt", join(here, "fixture.ts")],
  log: (line) => bridgeNotes.push(line),
  childStderr: childLog,
});
let failed = 0;
const summary: string[] = [];
try {
  const legacy = (await runSuite(legacyEntry, bridge.url, ["--suite", "all"])).map(verdictOf);
  const modern = await runSuite(modernEntry, bridge.url, ["--suite", "all", "--spec-version", "2026-07-28"]);
  // One at a time: the scenarios share the one child, and their request ids would meet.
  for (const scenario of TASK_SCENARIOS) {
    modern.push(...await runSuite(modernEntry, bridge.url, ["--scenario", scenario]));
  }
  const wires = [["2025-11-25", legacy, LEGACY_SUITE], ["2026-07-28", modern.map(verdictOf), MODERN_SUITE]] as const;
  for (const [wire, verdicts, suite] of wires) {
    const c = print(wire, verdicts);
    failed += c.fail;
    const waiting = verdicts.filter((v) => v.verdict === "fail" && WAITING[v.scenario] !== undefined).length;
    const warned = verdicts.filter((v) => (v.warnings ?? 0) > 0).length;
    summary.push(
      `${wire} (suite ${suite}): ${c.pass} of ${c.pass + c.fail} applicable passed` +
        (warned > 0 ? ` (${warned} with a warning)` : "") + `, ${c["n/a"]} not applicable` +
        (waiting > 0 ? `, ${waiting} failing wait on the JSON Schema engine` : ""),
    );
  }
} finally {
  await bridge.close();
}
console.log(
  `the fixture's stderr: ${childLog}; the bridge dropped ${bridgeNotes.length} message(s) it could not route`,
);
for (const note of new Set(bridgeNotes)) console.log(`  bridge: ${note}`);
console.log(`conformance: ${summary.join("; ")}`);
Deno.exit(failed === 0 ? 0 : 1);
