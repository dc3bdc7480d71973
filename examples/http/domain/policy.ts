import { dirname, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { netPolicyInit } from "./net_rules.ts";

/**
 * The audit file of a config as an absolute path: relative paths start at
 * the config file's directory, like every path in the config.
 *
 * @param config The config.
 * @param configPath The config file, if any.
 * @returns The absolute audit file, or `undefined` for stderr.
 *
 * @example A relative audit file
 * ```ts
 * import { auditFileOf } from "./policy.ts";
 * import { ConfigSchema } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * const config = ConfigSchema.parse({ audit_file: "audit.jsonl" });
 * assert.equal(auditFileOf(config, "/etc/forge/http.json"), "/etc/forge/audit.jsonl");
 * ```
 */
export function auditFileOf(config: Config, configPath: string | undefined): string | undefined {
  if (config.audit_file === undefined) return undefined;
  return resolve(configPath === undefined ? Deno.cwd() : dirname(configPath), config.audit_file);
}

/**
 * The policy both layers enforce, from the config the server started with:
 * the network (hosts with their ports, schemes, private hosts), the config
 * file (read; never its directory), the audit file (write) and the variables
 * the config uses.
 *
 * @param config The config at start.
 * @param configPath The config file, if any.
 * @param variables The environment variables the config references.
 * @returns The frozen policy.
 * @throws {TypeError} When the network fields are malformed (the schema refuses those first).
 *
 * @example Flags for a loopback test server
 * ```ts
 * import { policyFor } from "./policy.ts";
 * import { ConfigSchema } from "./config.ts";
 * import { derivePermissions } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const config = ConfigSchema.parse({
 *   allow_hosts: ["127.0.0.1:8080"],
 *   allow_schemes: ["http"],
 *   allow_private_hosts: ["127.0.0.1"],
 * });
 * const set = derivePermissions(policyFor(config, "/etc/forge/http.json", []));
 * assert.deepEqual(set.net, ["127.0.0.1:8080"]);
 * assert.deepEqual(set.read, ["/etc/forge/http.json"]);
 * ```
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[]): Policy {
  const audit = auditFileOf(config, configPath);
  return definePolicy({
    readFiles: configPath === undefined ? [] : [resolve(configPath)],
    writeFiles: audit === undefined ? [] : [audit],
    net: netPolicyInit(config),
    env: variables,
    limits: { maxFetchBytes: config.max_bytes, fetchTimeoutMs: config.timeout_ms, maxRedirects: config.max_redirects },
  });
}
