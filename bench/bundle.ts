// Builds a server the way `deno task bundle` ships one, so that its cold
// start can be measured beside the same server run from its source modules.

import { resolve } from "node:path";
import { bundleArgs } from "../permissions/bundle_args.ts";
import type { Env } from "./measure.ts";

/** The bundle's entry file (relative to the repository), or why there is none, in one line. */
export type Bundled = { file: string } | { failed: string };

/**
 * Bundles `entry` (relative to the repository) with `deno bundle
 * --code-splitting --minify` into `outdir` (relative to the repository or absolute,
 * emptied first so that no chunk of an older build is left beside the new one).
 *
 * @param env Where `deno` is and the repository it runs in.
 * @param entry The server's entry file.
 * @param outdir Where the bundle goes; the run must be allowed to write it.
 * @returns The bundle's entry file, or `Cannot bundle <entry>: <reason>` in one line.
 */
export async function bundleServer(env: Env, entry: string, outdir: string): Promise<Bundled> {
  const fail = (reason: string): Bundled => ({ failed: `Cannot bundle ${entry}: ${reason}` });
  const dir = resolve(env.repo, outdir);
  if ((await Deno.permissions.query({ name: "write", path: dir })).state !== "granted") {
    return fail(`the benchmark may not write ${outdir}`);
  }
  try {
    await Deno.remove(dir, { recursive: true });
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) return fail(`cannot empty ${outdir}: ${message(err)}`);
  }
  // The command `deno task bundle` runs, so that the bench measures what it ships; its run line ends with the entry chunk.
  const { bundle, run } = bundleArgs({ entry, flags: [], outdir });
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(env.deno, {
      // --no-lock: the benchmark must not write the repository's lock file.
      args: [bundle[0], "--quiet", "--no-lock", ...bundle.slice(1)],
      cwd: env.repo,
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (err) {
    return fail(message(err));
  }
  if (!output.success) return fail(firstError(new TextDecoder().decode(output.stderr)) ?? `exit code ${output.code}`);
  return { file: run[run.length - 1] };
}

/** The first `error:` line of deno's output (the cause; later ones repeat that bundling failed), cut short. */
function firstError(stderr: string): string | undefined {
  const lines = stderr.split("\n").map((line) => line.trim()).filter(Boolean);
  const line = lines.find((l) => l.startsWith("error:"))?.slice("error:".length).trim() ?? lines[0];
  return line === undefined ? undefined : line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
