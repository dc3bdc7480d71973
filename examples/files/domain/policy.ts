import { dirname, isAbsolute, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/**
 * The one policy both layers enforce for a config: its roots and writable
 * roots, its deny globs on top of the defaults, `max_bytes` as the read cap,
 * the audit file (written), the variables it references, and the config
 * file itself (read; never its folder, which may hold more than the roots),
 * and the descriptor anchor (read, and write when a root is writable): the
 * exact link, which Deno checks by its own path.
 * Relative paths start at the config file's folder, so a sample config can
 * use them.
 *
 * A root that is, or passes through, a symbolic link (`/tmp` on macOS) is
 * listed twice: as configured, and as the real path it resolves to now. The
 * jail opens real paths, and Deno grants by location without following links,
 * so layer 2 must name the real path; the configured one stays so the server
 * can resolve it at start and show it in results. Both name the same folder.
 * A root this process may not resolve (printing the flags with read access to
 * the config file only) is listed as configured: see {@linkcode unresolvedRoots}.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @param variables The names of the environment variables the config references.
 * @returns The frozen policy.
 */
export function policyFor(config: Config, configPath: string | undefined, variables: readonly string[] = []): Policy {
  const baseDir = baseDirOf(configPath);
  const anchor = fdAnchorOf(config, configPath);
  return definePolicy({
    readRoots: withRealPaths(config.roots, baseDir),
    writeRoots: withRealPaths(config.writable_roots, baseDir),
    deny: config.deny,
    readFiles: [...(configPath === undefined ? [] : [resolve(configPath)]), ...(anchor === undefined ? [] : [anchor])],
    writeFiles: [
      ...(config.audit_file === undefined ? [] : [config.audit_file]),
      ...(anchor === undefined || config.writable_roots.length === 0 ? [] : [anchor]),
    ],
    env: variables,
    limits: { maxReadBytes: config.max_bytes },
    baseDir,
  });
}

/**
 * The roots of a config whose real path this process cannot tell (it may not
 * read them, or they do not exist yet): if one of them is a symbolic link,
 * flags printed now would miss its real path.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @returns The absolute roots, as configured.
 */
export function unresolvedRoots(config: Config, configPath: string | undefined): string[] {
  const baseDir = baseDirOf(configPath);
  return [...config.roots, ...config.writable_roots]
    .map((root) => (isAbsolute(root) ? resolve(root) : resolve(baseDir, root)))
    .filter((root) => realPathOf(root) === undefined);
}

/** Each root as configured (absolute), followed by its real path when that differs. */
function withRealPaths(roots: readonly string[], baseDir: string): string[] {
  return roots.flatMap((root) => {
    const absolute = isAbsolute(root) ? resolve(root) : resolve(baseDir, root);
    const real = realPathOf(absolute);
    return real === undefined || real === absolute ? [absolute] : [absolute, real];
  });
}

function realPathOf(path: string): string | undefined {
  try {
    return Deno.realPathSync(path);
  } catch {
    // Missing, or outside what this process may read: the caller decides what that means.
    return undefined;
  }
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
 * The descriptor anchor of a config as an absolute path (relative to the config's folder), if any.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @returns The absolute path of the link, or undefined.
 */
export function fdAnchorOf(config: Config, configPath: string | undefined): string | undefined {
  if (config.fd_anchor === undefined) return undefined;
  return isAbsolute(config.fd_anchor) ? resolve(config.fd_anchor) : resolve(baseDirOf(configPath), config.fd_anchor);
}

/** The folder relative paths of a config start at: the config file's, else the working directory. */
function baseDirOf(configPath: string | undefined): string {
  return configPath === undefined ? Deno.cwd() : dirname(resolve(configPath));
}
