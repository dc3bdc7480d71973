/**
 * Builds a server into one binary with its least-privilege permissions baked
 * in: asks the server for its flags (`--print-permissions`, with the given
 * config), then runs `deno compile` with exactly those and the config
 * embedded as the static fallback. Run it as a script:
 *
 * ```sh
 * deno run --allow-run --allow-read --allow-env jsr:@forge/toolkit/compile \
 *   main.ts --config /etc/files.json --output dist/files [--target TRIPLE] [--dry-run]
 * ```
 *
 * `deno compile` downloads its runtime (denort) from dl.deno.land; where that
 * is unreachable the build fails, and the script says so plainly.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { basename, dirname, resolve } from "node:path";
import { configVariables } from "../configreload/mod.ts";
import { compileArgs } from "./compile_args.ts";
import { printedPermissions } from "./printed_permissions.ts";
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
 * @param options See {@linkcode CompileServerOptions}.
 * @returns The command and whether it built.
 * @throws {Error} When the server does not print its permissions.
 *
 * @example Work out the command without building
 * ```ts ignore
 * import { compileServer } from "@forge/toolkit/compile";
 *
 * const { command } = await compileServer({ entry: "main.ts", config: "config.json", dryRun: true });
 * console.log(command.join(" "));
 * ```
 */
export async function compileServer(options: CompileServerOptions): Promise<CompileServerResult> {
  const config = options.config === undefined ? undefined : resolve(options.config);
  const env: Record<string, string> = {};
  if (config !== undefined) {
    for (const name of configVariables(await Deno.readFile(config))) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
  }
  const flags = await printedPermissions({ script: options.entry, config, env });
  const output = options.output ?? `dist/${basename(dirname(resolve(options.entry)))}`;
  const args = compileArgs({ entry: options.entry, flags, output, config, target: options.target });
  const command = ["deno", ...args];
  if (options.dryRun) return { command, built: false };
  const run = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit", stderr: "piped" }).output();
  if (run.success) return { command, built: true };
  let error = new TextDecoder().decode(run.stderr).trim();
  if (/denort|dl\.deno\.land/.test(error)) {
    error += "\ndeno compile needs its runtime (denort) from dl.deno.land, which this machine cannot reach. " +
      "The command above is exactly what would run; run it where the download works.";
  }
  return { command, built: false, error };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      config: { type: "string" },
      output: { type: "string" },
      target: { type: "string" },
      "dry-run": { type: "boolean", default: false },
    },
  });
  if (positionals.length !== 1) {
    console.error("usage: compile.ts <entry> [--config FILE] [--output PATH] [--target TRIPLE] [--dry-run]");
    Deno.exit(64);
  }
  let result: Awaited<ReturnType<typeof compileServer>>;
  try {
    result = await compileServer({
      entry: positionals[0],
      config: values.config,
      output: values.output,
      target: values.target,
      dryRun: values["dry-run"],
    });
  } catch (err) {
    // One line, never a stack trace: the server's own refusal (an unset
    // ${VAR} among them) names what to fix.
    console.error(`compile: ${(err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, " ").trim()}`);
    Deno.exit(1);
  }
  console.log(result.command.map(shellQuote).join(" "));
  if (result.error) console.error(result.error);
  Deno.exit(values["dry-run"] || result.built ? 0 : 1);
}
