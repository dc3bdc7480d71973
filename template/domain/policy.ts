import { dirname, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/**
 * The one policy both layers enforce: the notes directory (read and write),
 * the config file (read; never its directory, which may hold more), the audit
 * file (write) and the variables the config uses. Relative paths are taken
 * from the config file's directory.
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[]): Policy {
  const dirs = config.notes_dir === undefined ? [] : [config.notes_dir];
  const configDir = configPath === undefined ? undefined : dirname(resolve(configPath));
  return definePolicy({
    readRoots: dirs,
    writeRoots: dirs,
    readFiles: configPath === undefined ? [] : [resolve(configPath)],
    writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
    env: variables,
    limits: { maxReadBytes: config.max_bytes },
    baseDir: configDir ?? Deno.cwd(),
  });
}
