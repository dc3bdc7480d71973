import assert from "node:assert/strict";
import { DEFAULT_DENY } from "@forge/toolkit/validate";
import { ConfigSchema } from "./config.ts";
import { auditFileOf, policyFor } from "./policy.ts";

const config = ConfigSchema.parse({
  roots: ["data", "/srv/shared"],
  writable_roots: ["out"],
  deny: ["**/*.sqlite"],
  max_bytes: 4096,
  audit_file: "logs/audit.jsonl",
});

Deno.test("policyFor() resolves relative paths from the config file's folder", () => {
  const policy = policyFor(config, "/etc/forge/files.json");
  assert.deepEqual(policy.readRoots, ["/etc/forge/data", "/srv/shared"]);
  assert.deepEqual(policy.writeRoots, ["/etc/forge/out"]);
  assert.deepEqual(policy.writeFiles, ["/etc/forge/logs/audit.jsonl"]);
});

Deno.test("policyFor() reads the config file, never its folder, and no other server file", () => {
  assert.deepEqual(policyFor(config, "/etc/forge/files.json").readFiles, ["/etc/forge/files.json"]);
  assert.deepEqual(policyFor(ConfigSchema.parse({}), undefined).readFiles, []);
});

Deno.test("policyFor() adds the config's deny globs to the defaults and caps reads at max_bytes", () => {
  const policy = policyFor(config, "/etc/forge/files.json");
  for (const glob of DEFAULT_DENY) assert.ok(policy.deny.includes(glob), glob);
  assert.ok(policy.deny.includes("**/*.sqlite"));
  assert.equal(policy.limits.maxReadBytes, 4096);
});

Deno.test("policyFor() grants the config's variables and FORGE_TENANT_CONFIG, no other env", () => {
  const policy = policyFor(config, "/etc/forge/files.json", ["DATA_DIR"]);
  assert.deepEqual([...policy.env].sort(), ["DATA_DIR", "FORGE_TENANT_CONFIG"]);
});

Deno.test("policyFor() of an empty config allows no root, no write and no net", () => {
  const policy = policyFor(ConfigSchema.parse({}), "/etc/forge/files.json");
  assert.deepEqual(policy.readRoots, []);
  assert.deepEqual(policy.writeRoots, []);
  assert.deepEqual(policy.writeFiles, []);
  assert.deepEqual(policy.net.hosts, []);
});

Deno.test("auditFileOf() resolves the audit file like the policy does, and is undefined without one", () => {
  assert.equal(auditFileOf(config, "/etc/forge/files.json"), "/etc/forge/logs/audit.jsonl");
  assert.equal(auditFileOf(ConfigSchema.parse({}), "/etc/forge/files.json"), undefined);
});
