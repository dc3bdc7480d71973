// test-permissions: --allow-read={tmp} --allow-write={tmp}
import assert from "node:assert/strict";
import { join } from "node:path";
import { PathJail } from "../validate/path_jail.ts";
import { definePolicy } from "../validate/policy.ts";
import { PolicyError } from "../validate/policy_error.ts";
import { derivePermissions } from "./permission_set.ts";

Deno.test("derivePermissions() of an empty policy grants only the tenant config variable", () => {
  assert.deepEqual(derivePermissions(definePolicy()), {
    read: [],
    write: [],
    net: [],
    denyNet: [],
    env: ["FORGE_TENANT_CONFIG"],
    run: [],
  });
});

Deno.test("derivePermissions() of a policy that allows nothing is every list empty, the set run() uses without a policy", () => {
  // runner/run.ts holds this set as a constant, so that a server without a policy never loads the policy code.
  assert.deepEqual(derivePermissions(definePolicy({ tenantConfig: false })), {
    read: [],
    write: [],
    net: [],
    denyNet: [],
    env: [],
    run: [],
  });
});

Deno.test("derivePermissions() grants exactly the programs the policy runs, by absolute path", () => {
  const set = derivePermissions(definePolicy({ run: ["/usr/bin/kill", "/usr/bin/git", "/usr/bin/git"] }));
  assert.deepEqual(set.run, ["/usr/bin/git", "/usr/bin/kill"]);
  assert.throws(() => definePolicy({ run: ["git"] }), TypeError);
  assert.throws(() => definePolicy({ run: ["/usr/bin/a,b"] }), TypeError);
});

Deno.test("derivePermissions() reads roots, writable roots and server files; writes only what is writable", () => {
  const set = derivePermissions(definePolicy({
    readRoots: ["/srv/b", "/srv/a"],
    writeRoots: ["/srv/out"],
    readFiles: ["/etc/app.json", "/srv/a"],
    writeFiles: ["/var/log/audit.log"],
    env: ["TOKEN", "TOKEN"],
  }));
  assert.deepEqual(set.read, ["/etc/app.json", "/srv/a", "/srv/b", "/srv/out", "/var/log/audit.log"]);
  assert.deepEqual(set.write, ["/srv/out", "/var/log/audit.log"]);
  assert.deepEqual(set.env, ["FORGE_TENANT_CONFIG", "TOKEN"]);
});

Deno.test("derivePermissions() grants resolved names on all ports and literals per port", () => {
  const set = derivePermissions(definePolicy({
    net: { hosts: ["api.example.com", "*.cdn.example.com", "93.184.215.14"], ports: [443, 8443] },
  }));
  assert.deepEqual(set.net, ["*.cdn.example.com", "93.184.215.14:443", "93.184.215.14:8443", "api.example.com"]);
  assert.ok(set.denyNet.includes("10.0.0.0/8"));
  assert.ok(set.denyNet.includes("127.0.0.0/8"));
  assert.ok(set.denyNet.includes("169.254.169.254/32"));
  assert.ok(set.denyNet.includes("[::1]"));
});

Deno.test("derivePermissions() leaves out the deny range that holds an explicitly private IP", () => {
  const set = derivePermissions(definePolicy({ net: { schemes: ["http"], privateHosts: ["127.0.0.1", "[::1]"] } }));
  assert.deepEqual(set.net, ["127.0.0.1:80", "[::1]:80"]);
  assert.ok(!set.denyNet.includes("127.0.0.0/8"));
  assert.ok(!set.denyNet.includes("[::1]"));
  assert.ok(set.denyNet.includes("10.0.0.0/8"));
});

Deno.test("derivePermissions() keeps only metadata, multicast and unspecified denied for a private name", () => {
  const set = derivePermissions(definePolicy({ net: { privateHosts: ["db.internal"] } }));
  assert.deepEqual(set.net, ["db.internal:443"]);
  assert.deepEqual(set.denyNet, ["0.0.0.0/8", "169.254.169.254/32", "224.0.0.0/4", "[::]", "[fd00:ec2::254]"]);
});

Deno.test("derivePermissions() denies nothing when nothing is allowed on the network", () => {
  assert.deepEqual(derivePermissions(definePolicy({ readRoots: ["/x"] })).denyNet, []);
});

// Layer 2 on its own, with the grants derived from the policy: a read that
// bypasses the jail is stopped by Deno, and the jail still works inside.
const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "perm_" }));
const data = join(base, "data");
await Deno.mkdir(data);
const CANARY = `CANARY-${crypto.randomUUID()}`;
await Deno.writeTextFile(join(base, "canary.txt"), CANARY);
await Deno.writeTextFile(join(data, "a.txt"), "inside");
globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));
const policy = definePolicy({ readRoots: [data] });
const set = derivePermissions(policy);

Deno.test({
  name: "the derived --allow-read stops a read that bypasses the jail (NotCapable)",
  permissions: { read: [...set.read] },
  async fn() {
    assert.equal(await new PathJail(policy).readTextFile("a.txt"), "inside");
    await assert.rejects(Deno.readTextFile(join(base, "canary.txt")), Deno.errors.NotCapable);
  },
});

Deno.test({
  name: "the derived grants give no write at all to a read-only policy",
  permissions: { read: [...set.read], write: [...set.write] },
  async fn() {
    await assert.rejects(Deno.writeTextFile(join(data, "x.txt"), "x"), Deno.errors.NotCapable);
    await assert.rejects(new PathJail(policy).writeFile("x.txt", "x"), PolicyError);
  },
});

Deno.test("derivePermissions() grants NO_PROXY and no_proxy to a policy that allows a host, unless it keeps the environment's proxy", () => {
  const env = (net: Parameters<typeof definePolicy>[0]) => derivePermissions(definePolicy(net)).env;
  // run() sets both at start so fetch connects where layer 1 checked (runner/run_proxy_test.ts).
  assert.deepEqual(env({ net: { hosts: ["example.com"] }, env: ["TOKEN"] }), [
    "FORGE_TENANT_CONFIG",
    "NO_PROXY",
    "TOKEN",
    "no_proxy",
  ]);
  assert.deepEqual(env({ net: { privateHosts: ["127.0.0.1"], schemes: ["http"] }, tenantConfig: false }), [
    "NO_PROXY",
    "no_proxy",
  ]);
  assert.deepEqual(env({ net: { hosts: ["example.com"], environmentProxy: true }, tenantConfig: false }), []);
  assert.deepEqual(env({ readRoots: ["/srv"], net: { schemes: ["http"] }, tenantConfig: false }), []);
});
