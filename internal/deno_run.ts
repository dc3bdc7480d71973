// How the toolkit's test helpers start a Deno program: `deno run --quiet`,
// with a clean environment but for what childEnv() passes on, so that no
// secret of the test process reaches the server under test, and stdout and
// stderr piped for the caller to read.

import { childEnv } from "./child_env.ts";

/** Options of {@linkcode denoRun}. */
export interface DenoRunOptions {
  /** Environment of the process, on top of what `childEnv()` passes on. */
  env?: Record<string, string>;
  /** Working directory of the process; this process's own when absent. */
  cwd?: string;
  /**
   * Piped for a session, null for a program that must not wait for input.
   *
   * @default {"piped"}
   */
  stdin?: "piped" | "null";
}

/**
 * The command `deno run --quiet <args>`, stdout and stderr piped.
 *
 * @param args Permission flags, the script, then its own arguments.
 * @param options See {@linkcode DenoRunOptions}.
 * @returns The command, not yet started.
 *
 * @example Run a script and read what it printed
 * ```ts ignore
 * import { denoRun } from "./deno_run.ts";
 *
 * const out = await denoRun(["main.ts", "--health"], { stdin: "null" }).output();
 * console.log(new TextDecoder().decode(out.stdout));
 * ```
 */
export function denoRun(args: readonly string[], options: DenoRunOptions = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", ...args],
    env: childEnv(options.env),
    clearEnv: true,
    cwd: options.cwd,
    stdin: options.stdin ?? "piped",
    stdout: "piped",
    stderr: "piped",
  });
}
