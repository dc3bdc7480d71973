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
