import { denoRun } from "../internal/deno_run.ts";

/** Options of {@linkcode runDeno}. */
export interface RunDenoOptions {
  /** Arguments after `deno run --quiet --no-prompt`: permission flags, the script, then its own arguments. */
  args: readonly string[];
  /**
   * Environment of the process; of this process's own, only what `childEnv()`
   * passes on is inherited.
   */
  env?: Record<string, string>;
  /** Working directory of the process. */
  cwd?: string;
}

/** How a process ended and what it printed. */
export interface RunDenoResult {
  /** The exit code. */
  code: number;
  /** Everything it wrote to stdout. */
  stdout: string;
  /** Everything it wrote to stderr. */
  stderr: string;
}

/**
 * Runs `deno run --quiet --no-prompt <args>` to its end, with no stdin and a
 * clean environment, and collects its output: for what a server does at start
 * (`--print-permissions`, `--health`, a refusal to serve) rather than over a
 * session. `--no-prompt` turns a permission the flags lack into an error
 * instead of a question nobody answers.
 *
 * @param options See {@linkcode RunDenoOptions}.
 * @returns The exit code and the decoded stdout and stderr.
 * @throws {Deno.errors.NotCapable} Without `--allow-run` for the deno executable.
 *
 * @example Assert a server refuses to start with every permission
 * ```ts ignore
 * import { runDeno } from "@forge/toolkit/testing";
 * import assert from "node:assert/strict";
 *
 * const { code, stderr } = await runDeno({ args: ["-A", "main.ts", "-config", "config.json"] });
 * assert.equal(code, 2);
 * assert.match(stderr, /refusing to serve/);
 * ```
 */
export async function runDeno(options: RunDenoOptions): Promise<RunDenoResult> {
  const out = await denoRun(["--no-prompt", ...options.args], { env: options.env, cwd: options.cwd, stdin: "null" })
    .output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}
