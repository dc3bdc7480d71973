import assert from "node:assert/strict";
import { derivePermissions, permissionFlags } from "@forge/toolkit/permissions";
import { ConfigSchema } from "./config.ts";
import { auditFileOf, databasePathOf, policyFor } from "./policy.ts";

const source = { path: "/etc/forge/sqlite/sqlite.json", variables: ["DB_DIR"] };

Deno.test("policyFor(): read-only reads the config file and the database, writes nothing, runs only this deno", () => {
  const policy = policyFor(ConfigSchema.parse({ database: "/srv/shop.db" }), source);
  assert.deepEqual(permissionFlags(derivePermissions(policy)), [
    "--allow-read=/etc/forge/sqlite/sqlite.json,/srv/shop.db",
    "--allow-env=DB_DIR,FORGE_TENANT_CONFIG",
    `--allow-run=${Deno.execPath()}`,
  ]);
  assert.equal(policy.limits.maxRows, 100);
});

Deno.test("policyFor(): writable adds write access to the database file only (no -journal or -wal)", () => {
  const policy = policyFor(ConfigSchema.parse({ database: "/srv/shop.db", writable: true }), source);
  assert.deepEqual(policy.writeFiles, ["/srv/shop.db"]);
  assert.deepEqual(derivePermissions(policy).write, ["/srv/shop.db"]);
});

Deno.test("policyFor(): the audit file is written; relative paths start at the config's folder", () => {
  const config = ConfigSchema.parse({ database: "shop.db", audit_file: "../logs/audit.jsonl" });
  const policy = policyFor(config, source);
  assert.deepEqual(policy.readFiles, ["/etc/forge/sqlite/sqlite.json", "/etc/forge/sqlite/shop.db"]);
  assert.deepEqual(policy.writeFiles, ["/etc/forge/logs/audit.jsonl"]);
  assert.equal(databasePathOf(config, source.path), "/etc/forge/sqlite/shop.db");
  assert.equal(auditFileOf(config, source.path), "/etc/forge/logs/audit.jsonl");
});

Deno.test("policyFor(): with no database and no config file the policy allows nothing but the tenant variable", () => {
  const policy = policyFor(ConfigSchema.parse({}), { path: undefined });
  assert.deepEqual(permissionFlags(derivePermissions(policy)), ["--allow-env=FORGE_TENANT_CONFIG"]);
  assert.equal(databasePathOf(ConfigSchema.parse({}), undefined), undefined);
  assert.equal(auditFileOf(ConfigSchema.parse({}), undefined), undefined);
});

Deno.test("policyFor(): max_rows and max_sql_length become the policy's limits", () => {
  const policy = policyFor(ConfigSchema.parse({ max_rows: 7, max_sql_length: 300 }), source);
  assert.equal(policy.limits.maxRows, 7);
  assert.equal(policy.limits.maxSqlLength, 300);
});
