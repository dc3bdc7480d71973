import assert from "node:assert/strict";
import { ConfigSchema } from "./config.ts";
import { auditFileOf, policyFor } from "./policy.ts";

Deno.test("policyFor() reads the repositories and the config, runs git and kill, writes the audit file and the object stores of writable repositories only", () => {
  const config = ConfigSchema.parse({
    repos: [
      { name: "app", path: "repos/app", writable: true },
      { name: "wt", path: "repos/wt", writable: true, allow_outside: ["repos/app/.git"] },
      { name: "docs", path: "repos/docs", allow_outside: ["/srv/shared"] },
    ],
    audit_file: "audit.jsonl",
  });
  const policy = policyFor(config, "/etc/forge/git.json", ["TOKEN"]);
  assert.deepEqual(policy.readRoots, [
    "/etc/forge/repos/app",
    "/etc/forge/repos/wt",
    "/etc/forge/repos/app/.git",
    "/etc/forge/repos/docs",
    "/srv/shared",
  ]);
  // Where a commit's quarantine is made: a writable repository's object store and allow_outside folders (wt's store is
  // app's), never a work tree or the rest of .git (its config, hooks, refs), nothing of a read-only repository.
  assert.deepEqual(policy.writeRoots, [
    "/etc/forge/repos/app/.git/objects",
    "/etc/forge/repos/wt/.git/objects",
    "/etc/forge/repos/app/.git",
  ]);
  assert.deepEqual(policy.readFiles, ["/etc/forge/git.json"]);
  assert.deepEqual(policy.writeFiles, ["/etc/forge/audit.jsonl"]);
  assert.deepEqual(policy.run, ["/usr/bin/git", "/usr/bin/kill", "/usr/bin/setsid"]);
  assert.deepEqual(policy.net.hosts, []);
  assert.ok(policy.env.includes("TOKEN"));
  assert.equal(auditFileOf(config, "/etc/forge/git.json"), "/etc/forge/audit.jsonl");
});
