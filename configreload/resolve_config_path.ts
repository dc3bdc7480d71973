import { isAbsolute, join } from "node:path";
import { quote } from "../internal/quote.ts";
import { TENANT_CONFIG_VARIABLE } from "../internal/tenant_variable.ts";
import type { EnvReader } from "./expand.ts";

/** Where a server's config comes from. */
export interface ConfigPath {
  /** The file to load, or `undefined` when there is none. */
  readonly path: string | undefined;
  /**
   * `flag` (`-config FILE`), `tenant` (`$FORGE_TENANT_CONFIG/<server>.json`),
   * or `none`: no file, so the server runs with its defaults, which must allow
   * nothing.
   */
  readonly source: "flag" | "tenant" | "none";
  /**
   * The tenant file looked for (`$FORGE_TENANT_CONFIG/<server>.json`) when
   * the variable is set, whichever file was chosen: a server started with
   * `-config` still checks it at every start (it may appear), so it needs read
   * of it too.
   */
  readonly tenantFile?: string;
}

/** Options of {@linkcode resolveConfigPath}. */
export interface ResolveConfigPathOptions {
  /**
   * The command-line arguments to search for the flag.
   * @default {Deno.args}
   */
  args?: readonly string[];
  /**
   * Where `FORGE_TENANT_CONFIG` is read.
   * @default {Deno.env}
   */
  env?: EnvReader;
  /**
   * Whether the tenant file exists (it decides between the tenant file and a
   * static `-config`).
   * @default {a Deno.statSync check}
   */
  exists?: (path: string) => boolean;
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FLAGS = ["-config", "--config"];

/**
 * Chooses a server's config file, once, at start. The tenant's own file comes
 * first, and a static `-config` is the fallback when it is absent:
 *
 * 1. `$FORGE_TENANT_CONFIG/<server>.json`, when that variable is set and the
 *    file exists;
 * 2. `-config FILE` (also `--config FILE`, `-config=FILE`, `--config=FILE`);
 * 3. `$FORGE_TENANT_CONFIG/<server>.json` that does not exist yet: the server
 *    runs with its defaults until it appears (load it with `optional: true`);
 * 4. nothing: `source` is `none` and the server uses its defaults, which must
 *    allow nothing.
 *
 * Arguments after `--` are not searched. With a `-config` and no permission
 * to read `FORGE_TENANT_CONFIG`, the flag is used. Checking the tenant file
 * needs read of that file only: grant `<dir>/<server>.json`, never the
 * directory, which holds the other servers' configs.
 *
 * @param server The server's name, e.g. `files`: letters, digits, `_` and `-`.
 * @param options See {@linkcode ResolveConfigPathOptions}.
 * @returns The chosen path and where it came from.
 * @throws {TypeError} When the server name is not a plain name, the flag is
 *   given twice or without a value, or `FORGE_TENANT_CONFIG` is not an
 *   absolute path or may not be read (and there is no flag to fall back on).
 *
 * @example The tenant file wins when it exists; a static -config is the fallback
 * ```ts
 * import { resolveConfigPath } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const env = new Map([["FORGE_TENANT_CONFIG", "/etc/forge/acme"]]);
 * const args = ["-config", "/opt/files/default.json"];
 *
 * assert.deepEqual(resolveConfigPath("files", { args, env, exists: () => true }), {
 *   path: "/etc/forge/acme/files.json",
 *   source: "tenant",
 *   tenantFile: "/etc/forge/acme/files.json",
 * });
 * assert.deepEqual(resolveConfigPath("files", { args, env, exists: () => false }), {
 *   path: "/opt/files/default.json",
 *   source: "flag",
 *   tenantFile: "/etc/forge/acme/files.json",
 * });
 * assert.deepEqual(resolveConfigPath("files", { args: [], env: new Map() }), { path: undefined, source: "none" });
 * ```
 */
export function resolveConfigPath(server: string, options: ResolveConfigPathOptions = {}): ConfigPath {
  if (!SERVER_NAME.test(server)) {
    throw new TypeError(`Cannot resolve config: server name ${quote(server)} is not a plain name`);
  }
  const flag = findFlag(options.args ?? Deno.args);
  const env = options.env ?? Deno.env;
  let dir: string | undefined;
  try {
    dir = env.get(TENANT_CONFIG_VARIABLE);
  } catch (err) {
    if (flag !== undefined) return { path: flag, source: "flag" };
    throw new TypeError(
      `Cannot resolve config: ${TENANT_CONFIG_VARIABLE} may not be read (grant --allow-env=${TENANT_CONFIG_VARIABLE} or pass -config FILE)`,
      { cause: err },
    );
  }
  if (dir === undefined || dir === "") {
    return flag === undefined ? { path: undefined, source: "none" } : { path: flag, source: "flag" };
  }
  if (!isAbsolute(dir)) {
    throw new TypeError(`Cannot resolve config: ${TENANT_CONFIG_VARIABLE} ${quote(dir)} is not an absolute path`);
  }
  const tenant = join(dir, `${server}.json`);
  if (flag === undefined || (options.exists ?? fileExists)(tenant)) {
    return { path: tenant, source: "tenant", tenantFile: tenant };
  }
  return { path: flag, source: "flag", tenantFile: tenant };
}

function fileExists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw new TypeError(
      `Cannot resolve config: the tenant file ${quote(path)} may not be read (grant --allow-read for it)`,
      { cause: err },
    );
  }
}

function findFlag(args: readonly string[]): string | undefined {
  let found: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") break;
    let value: string | undefined;
    if (FLAGS.includes(arg)) {
      value = args[i + 1];
      i++;
      if (value === undefined || value.startsWith("-")) {
        throw new TypeError(
          `Cannot resolve config: ${arg} needs a file (write ${arg}=FILE for a name starting with "-")`,
        );
      }
    } else {
      const flag = FLAGS.find((f) => arg.startsWith(`${f}=`));
      if (flag === undefined) continue;
      value = arg.slice(flag.length + 1);
    }
    if (value === "") throw new TypeError(`Cannot resolve config: ${quote(arg)} names no file`);
    if (found !== undefined) throw new TypeError("Cannot resolve config: the config flag is given more than once");
    found = value;
  }
  return found;
}
