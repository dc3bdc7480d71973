// The one gate: format, lint, type-check, tests (each file with only the
// permissions it declares), doc tests, doc lint, publish dry run, and the
// demo. Ends with one line: `N passed, N failed`.
//
// A test file declares its permissions on a line of its own:
//   // test-permissions: --allow-read={tmp} --allow-run
// `{tmp}` is the system temp directory, `{repo}` this checkout and
// `{child-env}` the proxy and certificate variables childEnv() passes to a
// server. A file without the line runs with no permissions at all.
//
// Everything is type-checked once, by one `deno check --doc` (code, tests
// and JSDoc examples together); the test runs then skip the check
// (`--no-check`): checked group by group, the library's graph was checked
// again for each of some fifty permission groups, most of the gate's time.
// The files of one permission group run as a few generated modules, each
// importing a share of them in turn, so that Deno sets up one test module per
// share instead of one per file: that set-up, not the tests, was most of what
// the small files cost. The JSDoc examples run the same way: Deno generates
// their test modules (`--no-run`) and the gate runs them a share per module
// (scripts/_doc_tests.ts). A file whose tests need a module instance of their
// own (they change what every module of an isolate shares: Deno.stdout, a
// module loaded lazily) says why on a line of its own and runs alone:
//   // test-alone: it replaces Deno.stderr.write for the whole isolate
// and one whose tests use what a whole process shares (SQLite's heap cap,
// the resident memory) runs in a `deno test` process of its own:
//   // test-process: it fills SQLite's heap to its cap, ...
// A group that took under ten seconds last time runs as one module.
// The steps are independent, so they run side by side, as many at once as
// the machine has cores (`--jobs=N` to change it): the gate is CPU-bound, and
// every step more at once only added contention (docs/testing.md has the
// comparisons: four against three, then three against two). The longest start first,
// as the last run on this machine measured them (kept in the temp directory).
// docs/testing.md has the figures.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { testFilesByPermissions, type TestGroup } from "../testing/test_files.ts";
import { extractDocTests, writeDocTests } from "./_doc_tests.ts";
import { writeShareModules } from "./_share_modules.ts";
import { testRuns } from "./_test_runs.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp");
const deno = Deno.execPath();
const only = Deno.args.filter((a) => !a.startsWith("--"));
const quick = Deno.args.includes("--quick");
const jobs = Number(Deno.args.find((a) => a.startsWith("--jobs="))?.slice("--jobs=".length)) ||
  (navigator.hardwareConcurrency || 2);
/** How long each step took last time (seconds by label), to start the longest first. */
const timesFile = join(tmp, "forge-toolkit-gate-times.json");
const lastTimes: Record<string, number> = await Deno.readTextFile(timesFile).then(JSON.parse).catch(() => ({}));
const times: Record<string, number> = { ...lastTimes };

/** One command of the gate. */
interface Step {
  label: string;
  args: string[];
  /** True when the step is a test run whose passed and failed tests are counted. */
  counts: boolean;
  /** A guess of how long it takes in seconds, when the last run did not measure it. */
  weight: number;
}

interface Tally {
  passed: number;
  failed: number;
}
const tally: Tally = { passed: 0, failed: 0 };
const failures: string[] = [];
/** The longest one step may run; the whole gate takes a few minutes on 2 cores. */
const STEP_LIMIT_MS = 8 * 60_000;

async function run(step: Step): Promise<void> {
  const started = performance.now();
  const env = { ...Deno.env.toObject(), NO_COLOR: "1" };
  const child = new Deno.Command(deno, {
    args: step.args,
    cwd: repo,
    env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // A step that hangs fails at its limit with what it printed so far, instead
  // of holding the gate (and CI) until an outside timeout ends it silently.
  let hung = false;
  const limit = setTimeout(() => {
    hung = true;
    child.kill("SIGKILL");
  }, STEP_LIMIT_MS);
  const texts = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  const status = await child.status.finally(() => clearTimeout(limit));
  // A killed step's own children may still hold its pipes: read what is there, briefly.
  const [out, err] = hung
    ? await Promise.race([texts, new Promise<[string, string]>((r) => setTimeout(() => r(["", ""]), 2_000))])
    : await texts;
  const text = out + err + (hung ? `\n${step.label}: killed after ${STEP_LIMIT_MS / 1000} s without finishing\n` : "");
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  times[step.label] = Number(seconds);
  // Printed whole once the step is done, so that steps running side by side do not interleave.
  const report = (line: string) => console.log(`\n=== ${step.label}\n${line}`);
  if (step.counts) {
    const summary = [...text.matchAll(/(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/g)].at(-1);
    const passed = summary ? Number(summary[1]) : 0;
    const failed = summary ? Number(summary[2]) : 0;
    tally.passed += passed;
    tally.failed += failed;
    if (!status.success && failed === 0) {
      tally.failed += 1;
      failures.push(step.label);
    } else if (failed > 0) failures.push(step.label);
    report(status.success ? `${passed} passed in ${seconds}s` : text);
    return;
  }
  if (status.success) {
    tally.passed += 1;
    report(`ok in ${seconds}s`);
  } else {
    tally.failed += 1;
    failures.push(step.label);
    report(text);
  }
}

/** Runs the steps, `jobs` at a time, the heaviest first. */
async function runAll(steps: Step[]): Promise<void> {
  const expected = (step: Step) => lastTimes[step.label] ?? step.weight;
  const queue = [...steps].sort((a, b) => expected(b) - expected(a));
  const worker = async () => {
    for (let step = queue.shift(); step !== undefined; step = queue.shift()) await run(step);
  };
  await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, worker));
}

/** Shares per group: as many as `deno test --parallel` runs side by side. */
const SHARES = navigator.hardwareConcurrency || 2;
/** Where the generated modules go; removed at the end. */
const generated = await Deno.makeTempDir({ dir: tmp, prefix: "forge-toolkit-gate-" });

/**
 * A group whose last run took less than this many seconds runs its shared
 * files as one module: a second module costs its own set-up (about 0.3 s of
 * CPU) and loads the same imports again, more than it saves a short step.
 */
const ONE_SHARE_SECONDS = 10;

/**
 * The template's tests run once, in a project made from it: scripts/new_test.ts
 * scaffolds one, adds a tool, and runs all of that project's tests. Run in place
 * too, they would cost the gate a second time what they prove (docs/testing.md);
 * `deno task test template/` still runs them here.
 */
const template = only.some((prefix) => prefix.startsWith("template")) ? [] : ["template"];

function testFiles(): Promise<TestGroup[]> {
  return testFilesByPermissions(repo, {
    only,
    tmp,
    skip: ["node_modules", ".git", "testdata", "results", ...template],
  });
}

/**
 * What `script` prints under `sh`, whose parent the gate is (`$PPID`); "" where
 * it fails. /proc is read this way, since Deno opens it only to a script with
 * every permission.
 */
async function shOutput(script: string): Promise<string> {
  const out = await new Deno.Command("sh", { args: ["-c", script], stdout: "piped", stderr: "null" }).output()
    .catch(() => undefined);
  return out?.success ? new TextDecoder().decode(out.stdout) : "";
}

/** The 1, 5 and 15 minute load averages, where /proc says them: the gate's time depends on them. */
async function loadAverage(): Promise<string> {
  const text = await shOutput("cat /proc/loadavg");
  return text === "" ? "unknown" : text.split(" ").slice(0, 3).join(" ");
}

/**
 * The CPU time of the steps, in seconds (user and system, every process they
 * started included): what the gate costs, whatever else the machine runs,
 * while its wall time follows the load. Read from the gate's own
 * /proc/<pid>/stat (the time of reaped children); "unknown" where /proc or
 * getconf is missing.
 */
async function cpuSeconds(): Promise<string> {
  const [tick, stat] = (await shOutput('getconf CLK_TCK && cat "/proc/$PPID/stat"')).split("\n");
  // After the command's name in parentheses: state is field 3, cutime and cstime are fields 16 and 17.
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ") ?? [];
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number(tick) > 0 && Number.isFinite(ticks) ? (ticks / Number(tick)).toFixed(0) : "unknown";
}

/** The files deno.json exports, e.g. `./mod.ts` and `./validate/mod.ts`. */
async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
  return Object.values(config.exports as Record<string, string>);
}

const started = performance.now();
const version = (await Deno.readTextFile(join(repo, ".deno-version"))).trim();
if (Deno.version.deno !== version) {
  console.log(`Deno ${Deno.version.deno} is running, but .deno-version pins ${version}`);
  tally.failed += 1;
  failures.push("deno version");
}

const groups = await testFiles();
const steps: Step[] = [];
if (only.length === 0) {
  steps.push({ label: "fmt --check", args: ["fmt", "--check"], counts: false, weight: 2 });
  steps.push({ label: "lint", args: ["lint"], counts: false, weight: 2 });
  // Code, tests and the JSDoc examples: the one type check every later step relies on.
  steps.push({ label: "check --doc", args: ["check", "--doc", "."], counts: false, weight: 20 });
} else {
  const files = groups.flatMap((group) => group.files);
  if (files.length > 0) steps.push({ label: "check", args: ["check", ...files], counts: false, weight: 20 });
}
for (const { flags, files } of groups) {
  // In the group's process, the pooled files in generated modules, each importing a run of neighbouring files
  // (they share most of what they import), and the files that ask to run alone as they are; then each file
  // that asks for a process of its own in one (scripts/_test_runs.ts).
  const { pooled, alone, ownProcess } = await testRuns(files.sort(), (file) => Deno.readTextFile(join(repo, file)));
  // The label (printed, and the key of the times file) shows the flags space-joined, as typed; the run passes each
  // flag as an argument of its own, so a path with white space in it stays whole.
  const shown = flags.join(" ") || "(no permissions)";
  // A file that starts processes takes seconds; one that does not, a fraction of one.
  const perFile = flags.some((flag) => flag === "--allow-run" || flag.startsWith("--allow-run=")) ? 5 : 0.5;
  const test = (label: string, modules: string[], weight: number) =>
    steps.push({
      label,
      args: ["test", "--quiet", "--no-check", "--parallel", ...flags, ...modules],
      counts: true,
      weight,
    });
  const count = pooled.length + alone.length;
  if (count > 0) {
    const label = `test ${shown} [${count} files]`;
    const shares = (lastTimes[label] ?? count * perFile) < ONE_SHARE_SECONDS ? 1 : SHARES;
    const modules = pooled.length < 2
      ? pooled
      : await writeShareModules(pooled.map((f) => join(repo, f)), shares, generated, `group_${steps.length}`);
    test(label, [...modules, ...alone], count * perFile);
  }
  for (const file of ownProcess) test(`test ${shown} [${file}, a process of its own]`, [file], perFile);
}
if (only.length === 0) {
  // --doc on folders would also run their _test.ts files, without the permissions they declare.
  const docTargets = [
    "mod.ts",
    "stdio/",
    "validate/",
    "configreload/",
    "permissions/",
    "testing/",
    "toolkit/",
    "engine/",
    "runner/",
    "middleware/",
    "internal/",
    "jsonschema/",
  ];
  // The JSDoc examples as `deno test --doc` generates them, run a share per module (scripts/_doc_tests.ts).
  const docTests = await extractDocTests(deno, repo, ["--ignore=**/*_test.ts,**/testdata/"], docTargets);
  const docModules = await writeDocTests(docTests, await Deno.makeTempDir({ dir: generated }), SHARES);
  if (docTests.length === 0) {
    // Deno changed how it logs them: fail, rather than let `deno test` with no modules run every test file.
    console.log("test --doc: Deno generated no doc tests to run (scripts/_doc_tests.ts reads its debug log)");
    tally.failed += 1;
    failures.push("test --doc");
  } else {
    steps.push({
      label: `test --doc [${docTests.length} examples]`,
      args: ["test", "--no-check", "--quiet", "--parallel", ...docModules],
      counts: true,
      weight: 5,
    });
  }
  // All entry points in one run, as JSR documents the package: each name has
  // one home, and a type one entry point's signatures reach passes when any
  // entry point exports it.
  steps.push({
    label: "doc --lint (every entry point)",
    args: ["doc", "--lint", ...await entryPoints()],
    counts: false,
    weight: 5,
  });
  steps.push({
    label: "publish --dry-run",
    args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
    counts: false,
    weight: 10,
  });
  if (!quick) {
    // The README's first command: a real server driven by the official client.
    steps.push({ label: "demo (deno task demo)", args: ["task", "demo"], counts: false, weight: 10 });
  }
}
console.log(`${steps.length} steps, ${Math.min(jobs, steps.length)} at a time; load average ${await loadAverage()}`);
await runAll(steps);
await Deno.writeTextFile(timesFile, JSON.stringify(times)).catch(() => {});
await Deno.remove(generated, { recursive: true });

const seconds = ((performance.now() - started) / 1000).toFixed(0);
if (failures.length > 0) console.log(`\nFailed: ${failures.join("; ")}`);
console.log(`\nThe gate took ${seconds} s and ${await cpuSeconds()} s of CPU; load average ${await loadAverage()}.`);
console.log(`${tally.passed} passed, ${tally.failed} failed`);
Deno.exit(tally.failed === 0 ? 0 : 1);
