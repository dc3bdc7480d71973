// test-permissions: --allow-run --allow-read={repo}
import assert from "node:assert/strict";
import { ENV_PROBES, netProbes, pathProbes, runProbes, SYS_KINDS } from "./_probes.ts";

const FIXTURE = new URL("./testdata/probe_answers.ts", import.meta.url).pathname;

interface Answers {
  reported: string[];
  every: string[];
  asked: number;
}

// The probes as the fixture's check makes them: it runs in this folder, with no env grant (HOME's secrets are not
// probed), by the same deno.
const paths = pathProbes([]);
const hosts = netProbes([]);
// The eight unscoped kinds, HOME (whether the home folder's secrets are probed), then each probe once.
const probes = 8 + 1 + 3 * paths.length + hosts.length + ENV_PROBES.length + runProbes().length + SYS_KINDS.length;

async function answersUnder(flags: string[]): Promise<Answers> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, FIXTURE, JSON.stringify({ paths, hosts })],
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
    const { reported, every, asked } = await answersUnder(flags);
    const found = reported.filter((entry) => /^(read|write|ffi|net) /.test(entry));
    assert.deepEqual(found, every, `under ${flags.join(" ") || "no flags"}`);
    if (flags.length === 0) {
      assert.deepEqual(reported, []);
      // Each probe that answers "prompt" clears those above it: "/" by every path below it, a host by its ports.
      assert.ok(asked <= probes - 20, `asked ${asked} of ${probes} probes`);
    }
  }
});
