import { isAbsolute, join } from "node:path";
import { quote } from "./_quote.ts";
import type { EnvReader } from "./expand.ts";

/** The environment variable that names a tenant's config directory. */
export const TENANT_CONFIG_VARIABLE = "FORGE_TENANT_CONFIG";

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
}

/** Options of {@linkcode resolveConfigPath}. */
export interface ResolveConfigPathOptions {
  /**
   * The command-line arguments to search for the flag.
   * @default {Deno.args}
   */
  args?: readonly string[];
  /**
   * Where `FORGE_TENANT_CONFIG` is read; it is read only when no flag is given.
   * @default {Deno.env}
   */
  env?: EnvReader;
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]*$/;
const FLAGS = ["-config", "--config"];

/**
 * Chooses a server's config file. Precedence, first match wins:
 *
 * 1. `-config FILE`, `--config FILE`, `-config=FILE` or `--config=FILE`;
 * 2. `$FORGE_TENANT_CONFIG/<server>.json`, when that variable is set;
 * 3. nothing: `source` is `none` and the server uses its defaults, which must
 *    allow nothing.
 *
 * A `-config` on the command line therefore always wins, including when a
 * tenant file exists; when the host gives no flag, the tenant file is used.
 * Arguments after `--` are not searched. The file system is not touched.
 *
 * @param server The server's name, e.g. `files`: letters, digits, `_` and `-`.
 * @param options See {@linkcode ResolveConfigPathOptions}.
 * @returns The chosen path and where it came from.
 * @throws {TypeError} When the server name is not a plain name, the flag is
 *   given twice or without a value, or `FORGE_TENANT_CONFIG` is not an
 *   absolute path or may not be read.
 *
 * @example Resolve from a flag, from the tenant directory, or to nothing
 * ```ts
 * import { resolveConfigPath } from "@forge/toolkit/configreload";
 * import assert from "node:assert/strict";
 *
 * const tenant = new Map([["FORGE_TENANT_CONFIG", "/etc/forge/acme"]]);
 * const none = new Map<string, string>();
 *
 * assert.deepEqual(resolveConfigPath("files", { args: ["--config=/etc/files.json"], env: tenant }), {
 *   path: "/etc/files.json",
 *   source: "flag",
 * });
 * assert.deepEqual(resolveConfigPath("files", { args: [], env: tenant }), {
 *   path: "/etc/forge/acme/files.json",
 *   source: "tenant",
 * });
 * assert.deepEqual(resolveConfigPath("files", { args: [], env: none }), { path: undefined, source: "none" });
 * ```
 */
export function resolveConfigPath(server: string, options: ResolveConfigPathOptions = {}): ConfigPath {
  if (!SERVER_NAME.test(server)) {
    throw new TypeError(`Cannot resolve config: server name ${quote(server)} is not a plain name`);
  }
  const flag = findFlag(options.args ?? Deno.args);
  if (flag !== undefined) return { path: flag, source: "flag" };
  const env = options.env ?? Deno.env;
  let dir: string | undefined;
  try {
    dir = env.get(TENANT_CONFIG_VARIABLE);
  } catch (err) {
    throw new TypeError(
      `Cannot resolve config: ${TENANT_CONFIG_VARIABLE} may not be read (grant --allow-env=${TENANT_CONFIG_VARIABLE} or pass -config FILE)`,
      { cause: err },
    );
  }
  if (dir === undefined || dir === "") return { path: undefined, source: "none" };
  if (!isAbsolute(dir)) {
    throw new TypeError(`Cannot resolve config: ${TENANT_CONFIG_VARIABLE} ${quote(dir)} is not an absolute path`);
  }
  return { path: join(dir, `${server}.json`), source: "tenant" };
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
