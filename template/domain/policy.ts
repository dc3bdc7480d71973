import { dirname, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/** One root of the server: `notes` or a folder of the config, resolved. */
export interface Root {
  /** The absolute path (relative ones are taken from the config file's directory). */
  readonly path: string;
  /** Whether tools may write inside it. */
  readonly writable: boolean;
}

/** The roots of a config by name: `notes` (the notes directory, writable) and each of `folders`. */
export function rootsOf(config: Config, configPath: string | undefined): Map<string, Root> {
  const base = configPath === undefined ? Deno.cwd() : dirname(resolve(configPath));
  const roots = new Map<string, Root>();
  if (config.notes_dir !== undefined) roots.set("notes", { path: resolve(base, config.notes_dir), writable: true });
  for (const [name, folder] of Object.entries(config.folders)) {
    roots.set(name, { path: resolve(base, folder.path), writable: folder.writable });
  }
  return roots;
}

/**
 * The one policy both layers enforce: every root (read; write where
 * writable), the config file (read; never its directory, which may hold
 * more), the audit file (write) and the variables the config uses.
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[]): Policy {
  const roots = [...rootsOf(config, configPath).values()];
  const configDir = configPath === undefined ? undefined : dirname(resolve(configPath));
  return definePolicy({
    readRoots: roots.map((root) => root.path),
    writeRoots: roots.filter((root) => root.writable).map((root) => root.path),
    readFiles: configPath === undefined ? [] : [resolve(configPath)],
    writeFiles: config.audit_file === undefined ? [] : [config.audit_file],
    env: variables,
    limits: { maxReadBytes: config.max_bytes },
    baseDir: configDir ?? Deno.cwd(),
  });
}

/**
 * The policy of one root alone: a `PathJail` built from it starts relative
 * paths there and refuses every other root, so a tool that serves one folder
 * cannot reach the notes or another folder, whatever path it is given. The
 * policy's `readFiles` and `writeFiles` (the server's own files) stay, and a
 * `PathJail` never serves them.
 */
export function rootPolicy(policy: Policy, root: Root): Policy {
  return { ...policy, readRoots: [root.path], writeRoots: root.writable ? [root.path] : [] };
}
