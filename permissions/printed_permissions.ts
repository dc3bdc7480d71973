import { isAbsolute, resolve } from "node:path";
import { configVariables, TENANT_CONFIG_VARIABLE } from "../configreload/mod.ts";
import { childEnv } from "../internal/child_env.ts";
import { listFlag } from "./_flag_list.ts";

/** Options of {@linkcode printedPermissions}. */
export interface PrintedPermissionsOptions {
  /** The server's entry point. */
  script: string;
  /** The config file, passed as `-config` and made readable (with the variables it uses). */
  config?: string;
  /** More arguments for the server. */
  args?: readonly string[];
  /**
   * The environment the server gets (the config's `${VAR}`s come from here); of
   * this process's own, only what `childEnv()` passes on is inherited. With
   * `FORGE_TENANT_CONFIG` in it, the printing run may read that variable and
   * the tenant folder, to find the file the server would load (its own there,
   * else `config`).
   */
  env?: Record<string, string>;
  /** Working directory of the server. */
  cwd?: string;
}

/**
 * Asks a server for its least-privilege Deno flags, the way an operator does:
 * `deno run --allow-read=<config> --allow-env=<its variables> <script> -config <config> --print-permissions`.
 * The server prints the values of the config's `${NAME}`s as `env` sets them,
 * so the flags start it for real.
 *
 * @param options See {@linkcode PrintedPermissionsOptions}.
 * @returns The flags, one per element.
 * @throws {TypeError} When `args` holds `-config` (pass the file as `config`: the printing run may then read it).
 * @throws {Error} When the server does not print them (exit code other than 0).
 *
 * @example Start a server with exactly the flags it asks for
 * ```ts ignore
 * import { printedPermissions } from "@forge/toolkit/permissions";
 * import { spawnServer } from "@forge/toolkit/testing";
 *
 * const flags = await printedPermissions({ script: "examples/files/main.ts", config: "/tmp/files.json" });
 * const server = await spawnServer({ args: [...flags, "examples/files/main.ts", "-config", "/tmp/files.json"] });
 * ```
 */
export async function printedPermissions(options: PrintedPermissionsOptions): Promise<string[]> {
  const flag = options.args?.find((arg) => arg === "-config" || arg === "--config" || /^--?config=/.test(arg));
  if (flag !== undefined) {
    throw new TypeError(
      `Cannot print permissions: pass the config file as the config option, not ${flag} in args (the printing run may then read it)`,
    );
  }
  const env = childEnv(options.env);
  const names = options.config === undefined ? [] : configVariables(await Deno.readFile(options.config));
  const args = ["run", "--quiet", "--no-prompt"];
  // The file alone, as a served server gets: the loader checks its folder's
  // mode only when the folder happens to be readable.
  const read = options.config === undefined ? [] : [resolve(options.config)];
  const tenants = options.env?.[TENANT_CONFIG_VARIABLE];
  if (tenants !== undefined && isAbsolute(tenants)) {
    // Which file the server loads depends on whether its tenant file exists: the printing run looks.
    names.push(TENANT_CONFIG_VARIABLE);
    read.push(tenants);
  }
  if (read.length > 0) args.push(listFlag("print permissions", "--allow-read", read));
  if (names.length > 0) args.push(listFlag("print permissions", "--allow-env", names));
  // A permission flag of its own keeps Deno from handing down any of ours.
  args.push("--deny-run", options.script);
  if (options.config !== undefined) args.push("-config", options.config);
  args.push(...(options.args ?? []), "--print-permissions");
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    env,
    clearEnv: true,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const stderr = new TextDecoder().decode(out.stderr).slice(0, 2000);
    throw new Error(`Cannot read the permissions of ${options.script}: exit ${out.code}; stderr: ${stderr}`);
  }
  return shellWords(new TextDecoder().decode(out.stdout).trim());
}

/**
 * Splits the words `formatPermissionFlags` prints as a POSIX shell would:
 * single quotes, and a backslash outside them, as in the `'\''` that stands
 * for an apostrophe inside a quoted word.
 */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quoted = false;
  let inWord = false;
  let escaped = false;
  for (const c of text) {
    if (escaped) {
      word += c;
      escaped = false;
    } else if (quoted) {
      if (c === "'") quoted = false;
      else word += c;
    } else if (c === "\\") {
      escaped = inWord = true;
    } else if (c === "'") {
      quoted = inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}
