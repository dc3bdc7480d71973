import { assertScopedInputs } from "./_scoped_flags.ts";
import { RUNTIME_FLAGS } from "./runtime_flags.ts";

/** What to compile. */
export interface CompileOptions {
  /** The server's entry point, e.g. `examples/files/main.ts`. */
  entry: string;
  /** The least-privilege permission flags (what `--print-permissions` prints). */
  flags: readonly string[];
  /** The output binary. */
  output: string;
  /**
   * A config file to embed and bake in as `-config`: the static fallback when
   * no tenant file exists. Must be absolute, since the binary runs elsewhere.
   */
  config?: string;
  /**
   * A `deno compile --target`, e.g. `aarch64-apple-darwin`.
   * @default {the host's}
   */
  target?: string;
}

/**
 * The `deno compile` arguments that build a server into one binary with its
 * least-privilege permissions baked in: `--no-prompt`, {@linkcode RUNTIME_FLAGS}
 * (they grant nothing), exactly the given permission flags, the config embedded with `--include` and passed as
 * `-config`. Nothing else is granted.
 *
 * @param options See {@linkcode CompileOptions}.
 * @returns The arguments after `deno`.
 * @throws {TypeError} When a flag is not a permission flag, grants everything, or the config path is relative.
 *
 * @example Compile a file server
 * ```ts
 * import { compileArgs } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * const args = compileArgs({
 *   entry: "main.ts",
 *   flags: ["--allow-read=/srv/files,/etc/files.json", "--allow-env=FORGE_TENANT_CONFIG"],
 *   output: "dist/files",
 *   config: "/etc/files.json",
 * });
 * assert.deepEqual(args, [
 *   "compile", "--no-prompt", "--v8-flags=--max-semi-space-size=8,--no-lazy",
 *   "--allow-read=/srv/files,/etc/files.json", "--allow-env=FORGE_TENANT_CONFIG",
 *   "--include", "/etc/files.json",
 *   "--output", "dist/files",
 *   "main.ts", "-config", "/etc/files.json",
 * ]);
 * ```
 */
export function compileArgs(options: CompileOptions): string[] {
  assertScopedInputs("compile", options.flags, options.config);
  const args = ["compile", "--no-prompt", ...RUNTIME_FLAGS, ...options.flags];
  if (options.config !== undefined) args.push("--include", options.config);
  if (options.target !== undefined) args.push("--target", options.target);
  args.push("--output", options.output, options.entry);
  if (options.config !== undefined) args.push("-config", options.config);
  return args;
}
