// test-permissions: --allow-run
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("..", import.meta.url));

async function bench(args: string[], write = "bench/results") {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-lock", "--allow-run", `--allow-write=${write}`, "bench/main.ts", ...args],
    cwd: repo,
    stdin: "null",
  }).output();
  return {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
  };
}

for (
  const [args, message] of [
    [["--bogus"], /Unknown option '--bogus'/],
    [["--json"], /--json <value>' argument missing/],
    [["stray"], /Unexpected argument 'stray'/],
    [["--only", "toolkit,nope"], /unknown nope; known: toolkit, sdk-lowlevel/],
    [["--throughput", "--only", "toolkit"], /Cannot run --throughput without raw-floor: .*add it to --only/],
    [["--memory", "--throughput"], /Cannot run more than one of --memory, --sqlite and --throughput/],
    [["--skip", "memory,nope"], /Cannot skip nope: --skip takes memory, sqlite/],
    [["--skip", ","], /Cannot skip nothing: --skip takes memory, sqlite/],
    [["--sqlite", "--skip", "sqlite"], /Cannot run a phase alone and skip it/],
    [
      ["--smoke", "--json", "/nonexistent-dir/run.json"],
      /Cannot write the results to \/nonexistent-dir\/run\.json: run with --allow-write=\/nonexistent-dir/,
    ],
  ] as const
) {
  Deno.test({
    name: `bench refuses ${args.join(" ")} before measuring anything, with exit code 2 and the usage`,
    permissions: { run: true },
    fn: async () => {
      const { code, stdout, stderr } = await bench([...args]);
      assert.equal(code, 2, stderr);
      assert.match(stderr, message);
      assert.match(stderr, /usage: deno task bench/);
      assert.doesNotMatch(stdout, /•/, "no phase started");
    },
  });
}

Deno.test({
  name:
    "bench --smoke --skip memory,sqlite runs every other phase on the servers the README compares and the typed ones, and says what it skipped",
  permissions: { run: true },
  fn: async () => {
    // The gate's smoke run of the benchmark: the two phases left out run alone in the tests below.
    const only = "toolkit,sdk-lowlevel,raw-floor,typed,typed-refs,typed-unvalidated";
    const { code, stdout, stderr } = await bench(["--smoke", "--skip", "memory,sqlite", "--only", only]);
    assert.equal(code, 0, stdout + stderr);
    const phases = [...stdout.matchAll(/^• ([^:…]+)/gm)].map((m) => m[1].trim());
    assert.deepEqual(phases, [
      "preflight",
      "bundle",
      "cold start",
      "--health",
      "fresh processes",
      "throughput",
      "echo round trips",
      "over-limit messages (toolkit)",
      "RSS after 100, 300 and 1000 calls",
      "peak memory of one large or deep message",
      "sqlite example",
      "typed arguments",
    ]);
    assert.match(stdout, /^• peak memory of one large or deep message: skipped \(--skip\)$/m);
    assert.match(stdout, /^• sqlite example: skipped \(--skip\)$/m);
    assert.match(stdout, /^Smoke run \(tiny sizes; targets are informative only\)/m);
  },
});

Deno.test({
  name: "bench --memory runs only the peak-memory rows, judged against 4 × N + 64 MiB",
  permissions: { run: true },
  fn: async () => {
    const { code, stdout, stderr } = await bench(["--smoke", "--memory"]);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /peak RSS, one 1 MiB message of ASCII \(echo: the reply is as large\): \d+ MiB/);
    assert.match(stdout, /limit 4 × N \+ 64 MiB = 68 MiB/);
    assert.doesNotMatch(stdout, /cold start|throughput/, "no other phase ran");
  },
});

Deno.test({
  name: "bench --sqlite runs only the sqlite example's rows: warm, fresh and after-a-kill run_query",
  permissions: { run: true },
  fn: async () => {
    const { code, stdout, stderr } = await bench(["--smoke", "--sqlite"]);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /sqlite example, run_query on a warm database process, sequential, p50 \(ms\): \d/);
    assert.match(stdout, /sqlite example, first run_query right after initialize of a fresh server .*: \d/);
    assert.match(stdout, /sqlite example, run_query right after a query was killed at its 1000 ms deadline .*: \d/);
    assert.doesNotMatch(stdout, /cold start|throughput|peak RSS/, "no other phase ran");
  },
});

Deno.test({
  name: "bench --throughput runs only the throughput rounds and judges the toolkit's rows against the floor's",
  permissions: { run: true },
  fn: async () => {
    const { code, stdout, stderr } = await bench(["--smoke", "--throughput", "--only", "toolkit,raw-floor,cat-loop"]);
    assert.equal(code, 0, stdout + stderr);
    assert.match(stdout, /Targets \(toolkit\), against raw-floor round by round:/);
    // Every size and era, both kinds of row, each paired over the smoke plan's one round.
    for (const size of ["small calls", "1.5 KiB argument", "8 KiB argument"]) {
      for (const era of ["initialize era", "2026-07-28 era"]) {
        for (const [row, bound] of [["pipelined calls/s", "≥ 0.95×"], ["server CPU per pipelined call", "≤ 1.15×"]]) {
          const line = new RegExp(
            `(PASS|FAIL)  ${row}, warm, ${size}, ${era}, ${bound} the raw floor: [\\d.]+× paired \\(median of 1 round`,
          );
          assert.match(stdout, line);
        }
      }
    }
    assert.match(stdout, /For reference, cat-loop against raw-floor, the same rows \(not judged\):/);
    assert.match(stdout, / {6}server CPU per pipelined call, warm, 8 KiB argument, 2026-07-28 era: [\d.]+× paired/);
    assert.doesNotMatch(stdout, /cold start|--health|peak RSS|sqlite example/, "no other phase ran");
  },
});
