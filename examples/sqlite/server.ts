// The sqlite server: list, describe and query one SQLite file read-only, and
// change it through the `execute` pattern tool when the config allows. See
// README.md. main.ts loads this module unless it is asked to be a database
// process.
import { health, runWithConfig } from "@forge/toolkit";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

if (!health()) {
  await runWithConfig("sqlite", {
    version: "0.1.0",
    schema: ConfigSchema,
    policy: policyFor,
    auditFile: (config, source) => auditFileOf(config, source.path),
    manager: (config) => new Manager(config.get, { configPath: config.path, initial: config.initial }),
    register: registerAll,
  });
}
