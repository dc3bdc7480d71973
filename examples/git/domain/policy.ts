import { dirname, isAbsolute, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/**
 * The one policy both layers enforce for a config: the repositories are read
 * roots, with the folders outside them a repository's git data may be in
 * (the server resolves folders and checks paths there; git itself, a child
 * process, runs outside Deno's sandbox), git, the group killer and the
 * session starter are the only programs (`--allow-run`), the audit file is written, and the
 * config file is read. Nothing is writable by Deno itself: commits are git's.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @param variables The names of the environment variables the config references.
 * @returns The frozen policy.
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[] = []): Policy {
  return definePolicy({
    readRoots: config.repos.flatMap((repo) => [repo.path, ...repo.allow_outside]),
    readFiles: configPath === undefined ? [] : [resolve(configPath)],
    writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
    run: [config.git, config.kill, config.setsid],
    env: variables,
    limits: { maxResultBytes: config.max_output_bytes },
    baseDir: baseDirOf(configPath),
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

/**
 * The folder relative paths of a config start at: the config file's, else the working directory.
 *
 * @param configPath The config file, or undefined.
 * @returns An absolute folder.
 */
export function baseDirOf(configPath: string | undefined): string {
  return configPath === undefined ? Deno.cwd() : dirname(resolve(configPath));
}
