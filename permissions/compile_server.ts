// The build a compiled server needs: its own printed flags and its config,
// never a hand-written permission list. `deno task compile` is the command line.
import { basename, dirname, join, resolve } from "node:path";
import { deployedServer } from "./_config_env.ts";
import { listFlag } from "./_flag_list.ts";
import { compileArgs } from "./compile_args.ts";
import { shellQuote } from "../internal/shell_quote.ts";

/** Options of {@linkcode compileServer}. */
export interface CompileServerOptions {
  /** The server's entry point. */
  entry: string;
  /** The config to embed and bake in as `-config` (resolved to an absolute path). */
  config?: string;
  /**
   * The output binary.
   * @default {"dist/<name of the entry's folder>"}
   */
  output?: string;
  /** A `deno compile --target`. */
  target?: string;
  /**
   * Only work out the command; do not run it.
   * @default {false}
   */
  dryRun?: boolean;
}

/** What {@linkcode compileServer} did. */
export interface CompileServerResult {
  /** The `deno compile` command line, starting with `deno`. */
  command: string[];
  /** The same as one line a POSIX shell reads back unchanged (what to print). */
  commandLine: string;
  /** Whether a binary was built. */
  built: boolean;
  /** Why not, when `deno compile` failed. */
  error?: string;
}

/**
 * Works out the `deno compile` command for a server from its own
 * `--print-permissions` answer (values from the environment filled in from
 * this process's environment) and, unless `dryRun`, runs it.
 *
 * A server that starts its own executable (`Deno.execPath()`, as the sqlite
 * example starts its database processes) prints `--allow-run=<deno>`; once
 * compiled, its executable is the binary, so that grant names the binary's
 * absolute path instead (links in its folder resolved, as `Deno.execPath()`
 * reports them). The binary may then start itself only from where it was
 * built to.
 *
 * @param options See {@linkcode CompileServerOptions}.
 * @returns The command and whether it built.
 * @throws {Error} When the server does not print its permissions.
 *
 * @example Work out the command without building
 * ```ts ignore
 * import { compileServer } from "@forge/toolkit/permissions";
 *
 * const { commandLine } = await compileServer({ entry: "main.ts", config: "config.json", dryRun: true });
 * console.log(commandLine);
 * ```
 */
export async function compileServer(options: CompileServerOptions): Promise<CompileServerResult> {
  const printed = await deployedServer(options.entry, options.config);
  const config = printed.config;
  const output = options.output ?? printed.dist;
  const binary = await realOutputPath(output);
  const deno = Deno.execPath();
  const flags = printed.flags.map((flag) =>
    flag.startsWith("--allow-run=")
      ? listFlag(
        "compile",
        "--allow-run",
        flag.slice("--allow-run=".length).split(",").map((run) => run === deno ? binary : run),
      )
      : flag
  );
  const args = compileArgs({ entry: options.entry, flags, output, config, target: options.target });
  const command = ["deno", ...args];
  const commandLine = command.map(shellQuote).join(" ");
  if (options.dryRun) return { command, commandLine, built: false };
  const run = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit", stderr: "piped" }).output();
  if (run.success) return { command, commandLine, built: true };
  let error = new TextDecoder().decode(run.stderr).trim();
  if (/denort|dl\.deno\.land/.test(error)) {
    error += "\ndeno compile needs its runtime (denort) from dl.deno.land, which this machine cannot reach. " +
      "The command above is exactly what would run; run it where the download works.";
  }
  return { command, commandLine, built: false, error };
}

/** `output` as an absolute path, with the links of its longest existing folder resolved. */
async function realOutputPath(output: string): Promise<string> {
  let folder = dirname(resolve(output));
  const rest = [basename(resolve(output))];
  while (true) {
    try {
      return join(await Deno.realPath(folder), ...rest);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound) || dirname(folder) === folder) throw err;
      rest.unshift(basename(folder));
      folder = dirname(folder);
    }
  }
}
