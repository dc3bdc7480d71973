// The one gate: format, lint, type-check, tests (each file with only the
// permissions it declares), doc tests, doc lint, publish dry run, and the
// smoke runs. Ends with one line: `N passed, N failed`.
//
// A test file declares its permissions on a line of its own:
//   // test-permissions: --allow-read={tmp} --allow-run
// `{tmp}` is the system temp directory, `{repo}` this checkout and
// `{child-env}` the proxy and certificate variables childEnv() passes to a
// server. A file without the line runs with no permissions at all.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { testFilesByPermissions } from "../testing/test_files.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..");
const tmp = await Deno.realPath(Deno.env.get("TMPDIR") ?? "/tmp");
const deno = Deno.execPath();
const only = Deno.args.filter((a) => !a.startsWith("--"));
const quick = Deno.args.includes("--quick");

interface Tally {
  passed: number;
  failed: number;
}
const tally: Tally = { passed: 0, failed: 0 };
const failures: string[] = [];
/** The longest one step may run; the whole gate takes a few minutes on 2 cores. */
const STEP_LIMIT_MS = 8 * 60_000;

async function step(label: string, args: string[], countTests = false): Promise<void> {
  const started = performance.now();
  console.log(`\n=== ${label}`);
  const env = { ...Deno.env.toObject(), NO_COLOR: "1" };
  const child = new Deno.Command(deno, { args, cwd: repo, env, stdin: "null", stdout: "piped", stderr: "piped" })
    .spawn();
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
  const text = out + err + (hung ? `\n${label}: killed after ${STEP_LIMIT_MS / 1000} s without finishing\n` : "");
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (countTests) {
    const summary = [...text.matchAll(/(?:ok|FAILED) \| (\d+) passed(?: \(\d+ steps?\))? \| (\d+) failed/g)].at(-1);
    const passed = summary ? Number(summary[1]) : 0;
    const failed = summary ? Number(summary[2]) : 0;
    tally.passed += passed;
    tally.failed += failed;
    if (!status.success && failed === 0) {
      tally.failed += 1;
      failures.push(label);
    } else if (failed > 0) failures.push(label);
    console.log(status.success ? `${passed} passed in ${seconds}s` : text);
    return;
  }
  if (status.success) {
    tally.passed += 1;
    console.log(`ok in ${seconds}s`);
  } else {
    tally.failed += 1;
    failures.push(label);
    console.log(text);
  }
}

function testFiles(): Promise<Map<string, string[]>> {
  return testFilesByPermissions(repo, { only, tmp, skip: ["node_modules", ".git", "testdata", "results"] });
}

const version = (await Deno.readTextFile(join(repo, ".deno-version"))).trim();
if (Deno.version.deno !== version) {
  console.log(`Deno ${Deno.version.deno} is running, but .deno-version pins ${version}`);
  tally.failed += 1;
  failures.push("deno version");
}

if (only.length === 0) {
  await step("fmt --check", ["fmt", "--check"]);
  await step("lint", ["lint"]);
  await step("check", ["check", "."]);
}
for (const [flags, files] of await testFiles()) {
  const label = `test ${flags || "(no permissions)"} [${files.length} files]`;
  await step(label, ["test", "--quiet", "--parallel", ...flags.split(/\s+/).filter(Boolean), ...files.sort()], true);
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
  await step("test --doc", [
    "test",
    "--doc",
    "--quiet",
    "--parallel",
    "--ignore=**/*_test.ts,**/testdata/",
    ...docTargets,
  ], true);
  // All entry points in one run, as JSR documents the package: each name has
  // one home, and a type one entry point's signatures reach passes when any
  // entry point exports it.
  await step("doc --lint (every entry point)", ["doc", "--lint", ...await entryPoints()]);
  await step("publish --dry-run", ["publish", "--dry-run", "--allow-dirty"]);
  if (!quick) {
    for (const smoke of smokes()) await step(smoke.label, smoke.args, smoke.counts);
  }
}

/** The files deno.json exports, e.g. `./mod.ts` and `./validate/mod.ts`. */
async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(repo, "deno.json")));
  return Object.values(config.exports as Record<string, string>);
}

function smokes(): { label: string; args: string[]; counts: boolean }[] {
  return [
    // The README's first command: a real server driven by the official client.
    { label: "demo (deno task demo)", args: ["task", "demo"], counts: false },
    // The benchmark at a tiny size: it must run and print, not hit its targets.
    {
      label: "bench --smoke",
      args: ["run", "--allow-run", "--allow-write=bench/results", "bench/main.ts", "--smoke"],
      counts: false,
    },
  ];
}

if (failures.length > 0) console.log(`\nFailed: ${failures.join("; ")}`);
console.log(`${tally.passed} passed, ${tally.failed} failed`);
Deno.exit(tally.failed === 0 ? 0 : 1);
