// `deno task bundle <main.ts> [--config FILE] [--outdir DIR] [--dry-run]`:
// joins a server's modules into chunks of JavaScript that start faster than
// its sources (see bundleServer in @forge/toolkit/permissions), and prints the
// `deno bundle` command, then the least-privilege command that runs the
// bundle: what a host's config starts.
import { parseArgs } from "node:util";
import { bundleServer, type BundleServerResult } from "../permissions/bundle_server.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    config: { type: "string" },
    outdir: { type: "string" },
    "dry-run": { type: "boolean", default: false },
  },
});
if (positionals.length !== 1) {
  console.error("usage: deno task bundle <main.ts> [--config FILE] [--outdir DIR] [--dry-run]");
  Deno.exit(64);
}
let result: BundleServerResult;
try {
  result = await bundleServer({
    entry: positionals[0],
    config: values.config,
    outdir: values.outdir,
    dryRun: values["dry-run"],
  });
} catch (err) {
  // One line, never a stack trace: the server's own refusal (an unset ${VAR} among them) names what to fix.
  console.error(`bundle: ${(err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, " ").trim()}`);
  Deno.exit(1);
}
console.log(result.commandLine);
if (result.error) {
  console.error(`bundle: ${result.error}`);
  Deno.exit(1);
}
console.log(result.runLine);
