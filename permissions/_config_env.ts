// A deployment command asks the server for its flags with the config it will
// run with, so the config's ${VAR}s take the values this process sees.
import { configVariables } from "../configreload/config_variables.ts";

/**
 * The values of the variables a config file references, from this process's
 * environment; an unset one is left out, so the server names it in its refusal.
 *
 * @param config The config file (absolute), or none.
 * @returns Name to value, for `printedPermissions({ env })`.
 */
export async function configEnvironment(config: string | undefined): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  if (config === undefined) return env;
  for (const name of configVariables(await Deno.readFile(config))) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}
