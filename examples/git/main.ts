// The git server: read-only history tools and one approved commit tool over
// configured repositories, with git kept from running anything a repository
// configures. See README.md.
import { health, runWithConfig } from "@forge/toolkit";
import { ConfigSchema } from "./domain/config.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor } from "./domain/policy.ts";
import { programChange } from "./domain/program_change.ts";
import { registerAll } from "./tools/register.ts";

if (!health()) {
  await runWithConfig("git", {
    version: "0.1.0",
    schema: ConfigSchema,
    policy: (config, source) => policyFor(config, source.path, source.variables),
    auditFile: (config, source) => auditFileOf(config, source.path),
    // The programs are granted at start (--allow-run): a version that changes git, kill or setsid is not used.
    refuseReload: (next, first) => programChange(first, next),
    // Git opens work-tree files outside the path jail: the Manager keeps git_commit and the reads off the own files.
    manager: (config) => new Manager(config.get, config.path, { initial: config.initial, ownFiles: config.ownFiles }),
    // Before serving, each repository that cannot be served is named on stderr with the reason.
    register: async (server, mgr) => {
      await mgr.open();
      registerAll(server, mgr);
    },
  });
}
