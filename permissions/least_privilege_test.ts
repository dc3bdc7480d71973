// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-run --allow-env=FORGE_TENANT_CONFIG
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { definePolicy, type PolicyInit } from "../validate/policy.ts";
import { enforceLeastPrivilege } from "./least_privilege.ts";
import { formatPermissionFlags, permissionFlags } from "./permission_flags.ts";
import { derivePermissions } from "./permission_set.ts";

// Each case starts a real server process (the fixture) under real flags and
// checks its exit code and stderr: the start-up check reads the grants the
// way a deployed server would.
const fixture = fileURLToPath(new URL("./testdata/enforce_fixture.ts", import.meta.url));
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "lp_" }));
const data = join(base, "data");
await Deno.mkdir(data);
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

async function configure(name: string, init: PolicyInit): Promise<{ config: string; flags: string[]; line: string }> {
  const config = join(base, `${name}.json`);
  await Deno.writeTextFile(config, JSON.stringify(init));
  const set = derivePermissions(definePolicy({ ...init, readFiles: [...(init.readFiles ?? []), config] }));
  return { config, flags: permissionFlags(set), line: formatPermissionFlags(set) };
}

async function start(flags: string[], args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-prompt", "--no-config", ...flags, fixture, ...args],
    cwd: data,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

const files = await configure("files", { readRoots: [data] });
const net = await configure("net", { readRoots: [data], net: { hosts: ["api.example.com"] }, env: ["API_TOKEN"] });
const local = await configure("local", { net: { schemes: ["http"], privateHosts: ["127.0.0.1"], ports: [8080] } });
const withoutDeny = net.flags.filter((f) => !f.startsWith("--deny-net"));
// Each range of --deny-net narrowed to its first address: a query of that address alone still answers "denied".
const narrowedDeny = net.flags.map((f) => f.startsWith("--deny-net=") ? f.replace(/\/\d+/g, "") : f);
// Each range denied on one port only: the others stay open.
const portDeny = net.flags.map((f) => f.startsWith("--deny-net=") ? f.replace(/\/(\d+)/g, "/$1:443") : f);
const envOf = (flags: string[]) => flags.filter((f) => !f.startsWith("--allow-env"));

const refusals: [string, string[], string][] = [
  ["-A", ["-A"], "-A (--allow-all)"],
  ["unscoped --allow-read", ["--allow-read", "--allow-env=FORGE_TENANT_CONFIG"], "unscoped --allow-read"],
  [
    "read of the root's parent",
    [`--allow-read=${files.config},${data},${base}`, "--allow-env=FORGE_TENANT_CONFIG"],
    `read "${base}"`,
  ],
  ["read of /", [`--allow-read=${files.config},${data},/`, "--allow-env=FORGE_TENANT_CONFIG"], 'read "/"'],
  ["read of /etc", [...files.flags, "--allow-read=/etc"], 'read "/etc"'],
  ["read of the temp dir", [...files.flags, `--allow-read=${dirname(base)}`], `read "${dirname(base)}"`],
  ["unscoped write", [...files.flags, "--allow-write"], "unscoped --allow-write"],
  ["unscoped net", [...files.flags, "--allow-net"], "unscoped --allow-net"],
  ["unscoped run", [...files.flags, "--allow-run"], "unscoped --allow-run"],
  ["unscoped ffi", [...files.flags, "--allow-ffi"], "unscoped --allow-ffi"],
  ["unscoped sys", [...files.flags, "--allow-sys"], "unscoped --allow-sys"],
  ["unscoped env", [...envOf(files.flags), "--allow-env"], "unscoped --allow-env"],
  ["an extra env variable", [...envOf(files.flags), "--allow-env=FORGE_TENANT_CONFIG,HOME"], 'env "HOME"'],
  ["unscoped import", [...files.flags, "--allow-import"], "unscoped --allow-import"],
  ["an allowed host without --deny-net", withoutDeny, '--deny-net "10.0.0.0/8" is not in force'],
  ["--deny-net ranges narrowed to their first address", narrowedDeny, '--deny-net "10.0.0.0/8" is not in force'],
  ["--deny-net ranges given a port", portDeny, '--deny-net "10.0.0.0/8" is not in force'],
  ["another port of a private host", [...local.flags, "--allow-net=127.0.0.1:22"], 'net "127.0.0.1:22"'],
  ["an allowed host plus loopback", [...net.flags, "--allow-net=127.0.0.1"], 'net "127.0.0.1"'],
];

// Scoped grants the probes would see, of kinds the files policy needs none of: those kinds are revoked whole once the
// check passes, so they are served without a line (revoke_unneeded_test.ts proves each use then fails NotCapable).
const revokedNotRefused: [string, string[], string][] = [
  ["write to the read-only root", [...files.flags, `--allow-write=${data}`], "write"],
  ["net to a loopback port", [...files.flags, "--allow-net=127.0.0.1:8080"], "net"],
  ["net to cloud metadata", [...files.flags, "--allow-net=169.254.169.254"], "net"],
  ["run of a shell", [...files.flags, "--allow-run=sh"], "run"],
  ["ffi inside the root", [...files.flags, `--allow-ffi=${data}`], "ffi"],
  ["sys hostname", [...files.flags, "--allow-sys=hostname"], "sys"],
];

for (const [label, flags, kind] of revokedNotRefused) {
  Deno.test({
    name: `a server given ${label}, a kind its policy needs none of, serves silently with that kind revoked`,
    permissions: { run: [Deno.execPath()], read: [base] },
    async fn() {
      const { code, stdout, stderr } = await start(flags, [files.config]);
      assert.equal(stderr, "");
      assert.equal(code, 0);
      const [serving, revoked] = stdout.trimEnd().split("\n");
      assert.equal(serving, "serving");
      assert.ok(revoked.split(" ").includes(kind), revoked);
    },
  });
}

Deno.test({
  name: "under the opt-out the probes of a kind the policy needs none of are asked, and what they see is named",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const flags = [...files.flags, "--allow-run=sh", "--allow-net=169.254.169.254"];
    const { code, stderr } = await start(flags, [files.config, "--allow-excess-permissions"]);
    assert.equal(code, 0);
    assert.match(stderr, /SERVING WITH EXCESS PERMISSIONS \(net "169\.254\.169\.254"; .*run "sh"/);
  },
});

for (const [label, flags, says] of refusals) {
  Deno.test({
    name: `a server refuses to start with ${label}: exit 2 and one stderr line with the right flags`,
    permissions: { run: [Deno.execPath()], read: [base] },
    async fn() {
      const config = flags.includes("--allow-net=127.0.0.1:22")
        ? local
        : flags === withoutDeny || flags === narrowedDeny || flags === portDeny ||
            flags.includes("--allow-net=127.0.0.1")
        ? net
        : files;
      const { code, stdout, stderr } = await start(flags, [config.config]);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, "");
      const lines = stderr.trimEnd().split("\n");
      assert.equal(lines.length, 1, stderr);
      assert.match(
        lines[0],
        /^fixture: refusing to serve: the process holds more permissions than its policy needs \(/,
      );
      assert.ok(lines[0].includes(says), lines[0]);
      assert.ok(lines[0].includes(`run with: ${config.line} (or pass --allow-excess-permissions`), lines[0]);
    },
  });
}

Deno.test({
  name: "a server with exactly the derived flags serves, silently",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    for (const config of [files, net, local]) {
      const { code, stdout, stderr } = await start(config.flags, [config.config]);
      assert.equal(stderr, "");
      assert.equal(code, 0);
      assert.equal(stdout.split("\n")[0], "serving");
    }
  },
});

Deno.test({
  name: "the opt-out serves with -A and says so loudly",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const { code, stdout, stderr } = await start(["-A"], [files.config, "--allow-excess-permissions"]);
    assert.equal(code, 0);
    assert.equal(stdout, "serving\nrevoked \n", "nothing is revoked under the opt-out");
    assert.match(stderr, /^fixture: WARNING: --allow-excess-permissions is set: SERVING WITH EXCESS PERMISSIONS \(-A/);
    assert.ok(stderr.includes(`run with: ${files.line}`));
  },
});

Deno.test({
  name: "the opt-out after -- is an operand: excess permissions are still refused",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const { code, stdout, stderr } = await start(["-A"], [files.config, "--", "--allow-excess-permissions"]);
    assert.equal(code, 2);
    assert.equal(stdout, "");
    assert.doesNotMatch(stderr, /WARNING/);
  },
});

Deno.test({
  name: "the opt-out warns even at least privilege",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const { code, stderr } = await start(files.flags, [files.config, "--allow-excess-permissions"]);
    assert.equal(code, 0);
    assert.match(stderr, /WARNING: --allow-excess-permissions is set: the least-privilege check is off/);
  },
});

Deno.test({
  name: "--print-permissions needs only read access to the config file",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const { code, stdout, stderr } = await start([`--allow-read=${net.config}`], [net.config, "--print-permissions"]);
    assert.equal(stderr, "");
    assert.equal(code, 0);
    assert.equal(stdout, `${net.line}\n`);
    assert.ok(stdout.startsWith(`--allow-read=${data},${net.config} --allow-net=api.example.com '--deny-net=`));
  },
});

Deno.test({
  name: "a server missing a grant its policy needs refuses to start: exit 2 and one line with the flags that fix it",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const { code, stdout, stderr } = await start([`--allow-read=${files.config}`], [files.config]);
    assert.equal(code, 2, stderr);
    assert.equal(stdout, "", "it never served");
    assert.equal(
      stderr,
      `fixture: refusing to serve: the process lacks permissions its policy needs (read "${data}"; env "FORGE_TENANT_CONFIG"); run with: ${files.line}\n`,
    );
  },
});

Deno.test({
  name: "a missing grant is refused under the opt-out too, and excess and missing grants share one line",
  permissions: { run: [Deno.execPath()], read: [base] },
  async fn() {
    const optOut = await start([`--allow-read=${files.config}`], [files.config, "--allow-excess-permissions"]);
    assert.equal(optOut.code, 2, optOut.stderr);
    assert.match(optOut.stderr, /^fixture: refusing to serve: the process lacks permissions its policy needs/);
    const both = await start([`--allow-read=${files.config},${data},/etc`], [files.config]);
    assert.equal(both.code, 2, both.stderr);
    assert.equal(both.stderr.trimEnd().split("\n").length, 1, both.stderr);
    assert.match(
      both.stderr,
      /^fixture: refusing to serve: the process holds more permissions than its policy needs \(.*read "\/etc".*\) and lacks permissions its policy needs \(env "FORGE_TENANT_CONFIG"\); run with: /,
    );
  },
});

Deno.test({
  name: "enforceLeastPrivilege() in-process: least privilege passes without a line",
  permissions: { read: [data], env: ["FORGE_TENANT_CONFIG"] },
  async fn() {
    const lines: string[] = [];
    const set = derivePermissions(definePolicy({ readRoots: [data] }));
    const verdict = await enforceLeastPrivilege(set, { name: "t", args: [], log: (l) => lines.push(l) });
    assert.equal(verdict.ok, true);
    assert.deepEqual(verdict.excess, []);
    assert.deepEqual(verdict.missing, []);
    assert.deepEqual(lines, []);
  },
});

Deno.test({
  name: "enforceLeastPrivilege() in-process: a read of the parent is refused",
  permissions: { read: [base] },
  async fn() {
    const lines: string[] = [];
    const set = derivePermissions(definePolicy({ readRoots: [data] }));
    const verdict = await enforceLeastPrivilege(set, { name: "t", allowExcess: false, log: (l) => lines.push(l) });
    assert.equal(verdict.ok, false);
    assert.ok(verdict.excess.includes(`read "${base}"`));
    assert.equal(lines.length, 1);
  },
});
