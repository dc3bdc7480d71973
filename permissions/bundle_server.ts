// A bundled server: its modules joined into fewer, larger chunks of
// JavaScript, which Deno loads faster than the many small modules of its
// sources (Deno's cost is per module), run with the server's own printed
// flags. `deno task bundle` is the command line.
import { resolve } from "node:path";
import { quote } from "../internal/quote.ts";
import { shellQuote } from "../internal/shell_quote.ts";
import { deployedServer } from "./_config_env.ts";
import { bundleArgs } from "./bundle_args.ts";

/** Options of {@linkcode bundleServer}. */
export interface BundleServerOptions {
  /** The server's entry point. */
  entry: string;
  /** The config the server runs with, passed as `-config` (resolved to an absolute path). */
  config?: string;
  /**
   * The folder to write the bundle to (resolved to an absolute path, which the run command names).
   * @default {"dist/<name of the entry's folder>.bundle"}
   */
  outdir?: string;
  /**
   * Only work out the commands; do not bundle.
   * @default {false}
   */
  dryRun?: boolean;
}

/** What {@linkcode bundleServer} did. */
export interface BundleServerResult {
  /** The `deno bundle` command line, starting with `deno`. */
  command: string[];
  /** The same as one line a POSIX shell reads back unchanged. */
  commandLine: string;
  /** The least-privilege command that runs the bundle, starting with `deno`: what a host starts. */
  run: string[];
  /** The same as one line a POSIX shell reads back unchanged. */
  runLine: string;
  /** Whether the bundle was written. */
  built: boolean;
  /** Why not, when `deno bundle` failed: one line. */
  error?: string;
}

/**
 * Works out, from a server's own `--print-permissions` answer (the config's
 * `${NAME}`s filled in from this process's environment), the `deno bundle`
 * command for it and the `deno run` command that starts the bundle with
 * exactly those flags, and unless `dryRun` runs `deno bundle`.
 *
 * The bundle keeps the server's two layers: the same code checks its policy
 * and, at start, refuses a process that holds more than the flags it prints.
 * A server that starts one of its own modules by path (a `.ts` file next to
 * it) cannot find it in a bundle; run such a server from source or compiled.
 *
 * @param options See {@linkcode BundleServerOptions}.
 * @returns The two commands and whether the bundle was built.
 * @throws {Error} When the server does not print its permissions.
 * @throws {TypeError} When it prints a flag that is not a scoped permission flag.
 *
 * @example Work out the commands without bundling
 * ```ts ignore
 * import { bundleServer } from "@forge/toolkit/permissions";
 *
 * const { commandLine, runLine } = await bundleServer({ entry: "main.ts", config: "config.json", dryRun: true });
 * console.log(commandLine);
 * console.log(runLine);
 * ```
 */
export async function bundleServer(options: BundleServerOptions): Promise<BundleServerResult> {
  const { config, flags, dist } = await deployedServer(options.entry, options.config);
  const outdir = resolve(options.outdir ?? `${dist}.bundle`);
  const args = bundleArgs({ entry: options.entry, flags, outdir, config });
  const command = ["deno", ...args.bundle];
  const run = ["deno", ...args.run];
  const lines = { commandLine: command.map(shellQuote).join(" "), runLine: run.map(shellQuote).join(" ") };
  if (options.dryRun) return { command, run, ...lines, built: false };
  const out = await new Deno.Command(Deno.execPath(), {
    args: args.bundle,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.success) return { command, run, ...lines, built: true };
  const error = `Cannot bundle ${quote(options.entry, 200)}: ${bundleFailure(new TextDecoder().decode(out.stderr))}`;
  return { command, run, ...lines, built: false, error };
}

/** What `deno bundle` said when it failed, as one line: its errors, without its banner or a backtrace. */
function bundleFailure(stderr: string): string {
  const lines: string[] = [];
  for (const line of stderr.split("\n").map((text) => text.trim())) {
    if (line.startsWith("Stack backtrace")) break;
    if (line !== "" && !line.includes("is experimental")) lines.push(line.replace(/^error: /, ""));
  }
  const said = lines.join(" ").slice(0, 1000) || "deno bundle failed without a message";
  // deno bundle runs esbuild, which it downloads from the npm registry the first time.
  return /esbuild/i.test(said) ? `${said} (deno bundle fetches esbuild from the npm registry on first use)` : said;
}
