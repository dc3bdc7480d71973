// The files server: read, list, stat and search inside configured roots, and
// write (atomically) inside writable roots. See README.md.
import { health, runWithConfig } from "@forge/toolkit";
import { ConfigSchema } from "./domain/config.ts";
import { anchorChange, checkFileAccess } from "./domain/file_access.ts";
import { Manager } from "./domain/manager.ts";
import { auditFileOf, policyFor, unresolvedRoots } from "./domain/policy.ts";
import { registerAll } from "./tools/register.ts";

let notes: string[] = [];
if (!health()) {
  await runWithConfig("files", {
    version: "0.1.0",
    schema: ConfigSchema,
    policy: (config, source) => {
      if (Deno.args.includes("--print-permissions")) noteUnresolved(unresolvedRoots(config, source.path).length);
      return policyFor(config, source.path, source.variables);
    },
    auditFile: (config, source) => auditFileOf(config, source.path),
    // The descriptor anchor is checked at start (checkFileAccess): a version that drops, moves or adds it is not used.
    refuseReload: (next, first, source) => anchorChange(first, next, source.path),
    manager: (config) => {
      notes = checkFileAccess(config.initial, config.path);
      return new Manager(config.get, config.path, { initial: config.initial, ownFiles: config.ownFiles });
    },
    // Said once the start-up checks passed, when the server is about to serve.
    register: (server, mgr) => {
      for (const note of notes) console.error(`files: ${note}`);
      return registerAll(server, mgr);
    },
  });
}

/** A printer that may not read the roots cannot see whether one is a symbolic link: it says how to print them exactly. */
function noteUnresolved(count: number): void {
  if (count === 0) return;
  console.error(
    `files: ${count} root(s) printed as configured: this process may not read them, so it cannot tell whether ` +
      "one is a symbolic link (as /tmp is on macOS); if one is, print again with --allow-read=<config>,<roots> " +
      "so the flags also name its real path",
  );
}
