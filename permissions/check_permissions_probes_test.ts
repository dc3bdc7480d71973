// test-permissions: --allow-run --allow-read={repo}
import assert from "node:assert/strict";

const FIXTURE = new URL("./testdata/probe_answers.ts", import.meta.url).pathname;

interface Answers {
  reported: string[];
  every: string[];
  asked: number;
  probes: number;
}

async function answersUnder(flags: string[]): Promise<Answers> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, FIXTURE],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

// Grants a probe is below or above, denies inside grants, ports of hosts: where a "prompt" could clear a probe.
const LAUNCHES = [
  [],
  ["--allow-read=/"],
  ["--allow-read=/etc"],
  ["--allow-read=/etc", "--deny-read=/etc/shadow"],
  ["--allow-read=/", "--deny-read=/etc"],
  ["--allow-read=/proc/self"],
  ["--allow-write=/root"],
  ["--allow-write=/var", "--deny-write=/var/run/docker.sock"],
  ["--allow-ffi=/"],
  ["--allow-ffi=/run/secrets"],
  ["--allow-net=127.0.0.1"],
  ["--allow-net=127.0.0.1:22"],
  ["--allow-net=[::1]"],
  ["--allow-net=localhost:8080,example.com"],
  ["--allow-net=10.0.0.1", "--deny-net=10.0.0.1:22"],
];

Deno.test("checkPermissions() finds every path and net probe a one-by-one ask finds, asking fewer", async () => {
  for (const flags of LAUNCHES) {
    const { reported, every, asked, probes } = await answersUnder(flags);
    const found = reported.filter((entry) => /^(read|write|ffi|net) /.test(entry));
    assert.deepEqual(found, every, `under ${flags.join(" ") || "no flags"}`);
    if (flags.length === 0) {
      assert.deepEqual(reported, []);
      // Each probe that answers "prompt" clears those above it: "/" by every path below it, a host by its ports.
      assert.ok(asked <= probes - 20, `asked ${asked} of ${probes} probes`);
    }
  }
});
