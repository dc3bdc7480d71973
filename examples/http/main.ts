// The http server: one pattern tool, fetch_url, under a live-reloaded config.
import { health, runWithConfig } from "@forge/toolkit";
import { ConfigSchema, SECRET_FIELDS } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

if (!health()) {
  await runWithConfig("http", {
    version: "0.1.0",
    schema: ConfigSchema,
    secretFields: SECRET_FIELDS,
    // Layer 2: exact flags, --print-permissions, the start-up check.
    policy: (config, source) => policyFor(config, source.path, source.variables),
    auditFile: (config, source) => auditFileOf(config, source.path),
    manager: (config) =>
      new Manager(config.get, {
        timeoutMs: config.initial.timeout_ms,
        redact: config.redact,
        initial: config.initial,
      }),
    register: registerAll,
  });
}
