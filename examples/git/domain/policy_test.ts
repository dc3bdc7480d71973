import assert from "node:assert/strict";
import { ConfigSchema } from "./config.ts";
import { auditFileOf, policyFor } from "./policy.ts";

Deno.test("policyFor() reads the repositories and the config, runs git and kill, writes only the audit file", () => {
  const config = ConfigSchema.parse({
    repos: [{ name: "app", path: "repos/app", writable: true }],
    audit_file: "audit.jsonl",
  });
  const policy = policyFor(config, "/etc/forge/git.json", ["TOKEN"]);
  assert.deepEqual(policy.readRoots, ["/etc/forge/repos/app"]);
  assert.deepEqual(policy.writeRoots, []);
  assert.deepEqual(policy.readFiles, ["/etc/forge/git.json"]);
  assert.deepEqual(policy.writeFiles, ["/etc/forge/audit.jsonl"]);
  assert.deepEqual(policy.run, ["/usr/bin/git", "/usr/bin/kill", "/usr/bin/setsid"]);
  assert.deepEqual(policy.net.hosts, []);
  assert.ok(policy.env.includes("TOKEN"));
  assert.equal(auditFileOf(config, "/etc/forge/git.json"), "/etc/forge/audit.jsonl");
});
