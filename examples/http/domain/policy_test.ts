import assert from "node:assert/strict";
import { derivePermissions, permissionFlags } from "@forge/toolkit/permissions";
import { ConfigSchema } from "./config.ts";
import { auditFileOf, policyFor } from "./policy.ts";

const CONFIG_FILE = "/etc/forge/http/config.json";

Deno.test("policyFor() grants names without a port, IP and private hosts with exactly their ports", () => {
  const config = ConfigSchema.parse({
    allow_hosts: ["api.example.com", "203.0.113.7:8443", "127.0.0.1:8080"],
    allow_schemes: ["https", "http"],
    allow_private_hosts: ["127.0.0.1"],
  });
  const set = derivePermissions(policyFor(config, CONFIG_FILE, []));
  // Names resolve through node:dns, which Deno allows only with a grant for every port of the name.
  assert.ok(set.net.includes("api.example.com"));
  // The policy has one port list, so each IP host gets every port of it (see the README's known limits).
  assert.ok(set.net.includes("127.0.0.1:8080") && set.net.includes("203.0.113.7:8443"));
  assert.ok(!set.net.some((entry) => entry.startsWith("127.0.0.2")));
  assert.ok(!set.denyNet.includes("127.0.0.0/8"), "the explicitly private 127.0.0.1 is not denied");
  assert.ok(set.denyNet.includes("10.0.0.0/8") && set.denyNet.includes("169.254.0.0/16"));
});

Deno.test("policyFor() denies every internal range when no private host is allowed", () => {
  const config = ConfigSchema.parse({ allow_hosts: ["example.com"] });
  const set = derivePermissions(policyFor(config, CONFIG_FILE, []));
  assert.deepEqual(set.net, ["example.com"]);
  for (const range of ["127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16", "[::1]"]) {
    assert.ok(set.denyNet.includes(range), range);
  }
});

Deno.test("policyFor() reads the config file (not its directory), writes only the audit file, and reads only the config's variables", () => {
  const config = ConfigSchema.parse({ audit_file: "logs/audit.jsonl" });
  const flags = permissionFlags(derivePermissions(policyFor(config, CONFIG_FILE, ["HTTP_TOKEN"])));
  assert.deepEqual(flags, [
    "--allow-read=/etc/forge/http/config.json,/etc/forge/http/logs/audit.jsonl",
    "--allow-write=/etc/forge/http/logs/audit.jsonl",
    "--allow-env=FORGE_TENANT_CONFIG,HTTP_TOKEN",
  ]);
});

Deno.test("policyFor() without hosts grants no network at all, not even --deny-net", () => {
  const flags = permissionFlags(derivePermissions(policyFor(ConfigSchema.parse({}), undefined, [])));
  assert.deepEqual(flags, ["--allow-env=FORGE_TENANT_CONFIG"]);
});

Deno.test("policyFor() carries the limits of the config", () => {
  const policy = policyFor(ConfigSchema.parse({ max_bytes: 10, timeout_ms: 200, max_redirects: 1 }), CONFIG_FILE, []);
  assert.equal(policy.limits.maxFetchBytes, 10);
  assert.equal(policy.limits.fetchTimeoutMs, 200);
  assert.equal(policy.limits.maxRedirects, 1);
});

Deno.test("auditFileOf() resolves a relative audit file against the config's directory", () => {
  assert.equal(auditFileOf(ConfigSchema.parse({ audit_file: "a.jsonl" }), CONFIG_FILE), "/etc/forge/http/a.jsonl");
  assert.equal(auditFileOf(ConfigSchema.parse({ audit_file: "/var/log/a.jsonl" }), CONFIG_FILE), "/var/log/a.jsonl");
  assert.equal(auditFileOf(ConfigSchema.parse({}), CONFIG_FILE), undefined);
});
