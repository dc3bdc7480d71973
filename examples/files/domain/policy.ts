import { dirname, isAbsolute, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/**
 * The one policy both layers enforce for a config: its roots and writable
 * roots, its deny globs on top of the defaults, `max_bytes` as the read cap,
 * the audit file (written), the variables it references, and the config
 * file itself (read; never its folder, which may hold more than the roots).
 * Relative paths start at the config file's folder, so a sample config can
 * use them.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @param variables The names of the environment variables the config references.
 * @returns The frozen policy.
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[] = []): Policy {
  const baseDir = baseDirOf(configPath);
  return definePolicy({
    readRoots: config.roots,
    writeRoots: config.writable_roots,
    deny: config.deny,
    readFiles: configPath === undefined ? [] : [resolve(configPath)],
    writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
    env: variables,
    limits: { maxReadBytes: config.max_bytes },
    baseDir,
  });
}

/**
 * The audit file of a config as an absolute path (relative to the config's folder), if any.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @returns The absolute path, or undefined for stderr.
 */
export function auditFileOf(config: Config, configPath: string | undefined): string | undefined {
  if (config.audit_file === undefined) return undefined;
  return isAbsolute(config.audit_file) ? resolve(config.audit_file) : resolve(baseDirOf(configPath), config.audit_file);
}

/** The folder relative paths of a config start at: the config file's, else the working directory. */
function baseDirOf(configPath: string | undefined): string {
  return configPath === undefined ? Deno.cwd() : dirname(resolve(configPath));
}
