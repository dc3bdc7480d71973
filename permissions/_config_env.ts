// A deployment command asks the server for its flags with the config it will
// run with, so the config's ${VAR}s take the values this process sees.
import { basename, dirname, resolve } from "node:path";
import { configVariables } from "../configreload/config_variables.ts";
import { quote } from "../internal/quote.ts";
import { printedPermissions } from "./printed_permissions.ts";

/** What a deployment command builds on: the config's absolute path and the flags the server prints with it. */
export interface DeployedServer {
  /** The config, absolute (a host starts the server elsewhere), or none. */
  config: string | undefined;
  /** What the server's `--print-permissions` prints with that config and this process's values of its `${VAR}`s. */
  flags: string[];
  /** Where its build goes by default: `dist/<name of the entry's folder>`, before any suffix. */
  dist: string;
}

/**
 * Asks the server at `entry` for its least-privilege flags with the config it
 * will run with, as a deployment command (compile, bundle) must.
 *
 * @throws {Error} When the config cannot be read, or the server does not print its permissions.
 */
export async function deployedServer(entry: string, config: string | undefined): Promise<DeployedServer> {
  const absolute = config === undefined ? undefined : resolve(config);
  const env = await configEnvironment(absolute);
  const flags = await printedPermissions({ script: entry, config: absolute, env });
  return { config: absolute, flags, dist: `dist/${basename(dirname(resolve(entry)))}` };
}

/**
 * The values of the variables a config file references, from this process's
 * environment; an unset one is left out, so the server names it in its refusal.
 *
 * @param config The config file (absolute), or none.
 * @returns Name to value, for `printedPermissions({ env })`.
 * @throws {Error} When the config does not exist or is a folder, naming it.
 */
export async function configEnvironment(config: string | undefined): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  if (config === undefined) return env;
  let text: Uint8Array;
  try {
    text = await Deno.readFile(config);
  } catch (err) {
    // The one line a command prints: which config, and why, never the OS's own wording.
    if (err instanceof Deno.errors.NotFound) {
      throw new Error(`Cannot read the config ${quote(config, 200)}: no such file`);
    }
    if (err instanceof Deno.errors.IsADirectory) {
      throw new Error(`Cannot read the config ${quote(config, 200)}: it is a folder`);
    }
    throw err;
  }
  for (const name of configVariables(text)) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}
