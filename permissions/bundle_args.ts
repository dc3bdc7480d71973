import { basename, extname, join } from "node:path";
import { assertScopedInputs } from "./_scoped_flags.ts";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

/** What to bundle, and how the bundle is to run. */
export interface BundleOptions {
  /** The server's entry point, e.g. `examples/files/main.ts`. */
  entry: string;
  /** The least-privilege permission flags (what `--print-permissions` prints). */
  flags: readonly string[];
  /** The folder the bundle is written to; the run command names its entry chunk inside it, so make it absolute. */
  outdir: string;
  /** A config file the server runs with, passed as `-config`. Must be absolute, since a host starts it elsewhere. */
  config?: string;
}

/** The two commands of a bundled server, each as the arguments after `deno`. */
export interface BundleArgs {
  /** Builds the bundle: `bundle --code-splitting --minify --outdir <outdir> <entry>`. */
  bundle: string[];
  /**
   * Runs it with nothing but the given flags:
   * `run --no-prompt <RUNTIME_FLAGS> <flags> <outdir>/<entry's name>.js [-config <config>]`.
   */
  run: string[];
}

/**
 * The `deno bundle` arguments that join a server's modules into minified chunks of
 * JavaScript (every `import()` stays a chunk of its own, loaded when it runs; minified, a
 * start reads and deserialises less), and the
 * `deno run` arguments that start the bundle with exactly the given
 * permission flags, {@linkcode RUNTIME_FLAGS} and `--no-prompt`: a missing grant is a refusal, never a
 * prompt, and nothing else is granted.
 *
 * @param options See {@linkcode BundleOptions}.
 * @returns The bundle and run arguments after `deno`.
 * @throws {TypeError} When a flag is not a scoped permission flag or the config path is relative.
 *
 * @example Bundle a file server
 * ```ts
 * import { bundleArgs } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const { bundle, run } = bundleArgs({
 *   entry: "main.ts",
 *   flags: ["--allow-read=/srv/files,/etc/files.json", "--allow-env=FORGE_TENANT_CONFIG"],
 *   outdir: "/opt/files",
 *   config: "/etc/files.json",
 * });
 * assert.deepEqual(bundle, ["bundle", "--code-splitting", "--minify", "--outdir", "/opt/files", "main.ts"]);
 * assert.deepEqual(run, [
 *   "run", "--no-prompt", "--v8-flags=--max-semi-space-size=8,--no-lazy",
 *   "--allow-read=/srv/files,/etc/files.json", "--allow-env=FORGE_TENANT_CONFIG",
 *   "/opt/files/main.js", "-config", "/etc/files.json",
 * ]);
 * ```
 */
export function bundleArgs(options: BundleOptions): BundleArgs {
  assertScopedInputs("bundle", options.flags, options.config);
  const script = join(options.outdir, `${basename(options.entry, extname(options.entry))}.js`);
  const run = ["run", "--no-prompt", ...RUNTIME_FLAGS, ...options.flags, script];
  if (options.config !== undefined) run.push("-config", options.config);
  return { bundle: ["bundle", "--code-splitting", "--minify", "--outdir", options.outdir, options.entry], run };
}
