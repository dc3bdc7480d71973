// my-server: health → runWithConfig (config, policy, Manager, audit, serve).
// Everything else lives in domain/ (the job) and tools/ (schemas and argument mapping).
import { health, runWithConfig } from "@forge/toolkit";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/notes.ts";
import { policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

const NAME = "my-server";

if (!health()) {
  await runWithConfig(NAME, {
    version: "0.1.0",
    schema: ConfigSchema,
    policy: (config, source) => policyFor(config, source.path, source.variables),
    auditFile: (config, source) => policyFor(config, source.path, source.variables).writeFiles[0],
    manager: (config) => new Manager(config),
    register: registerAll,
  });
}
