// `deno task compile <main.ts> [--config FILE] [--output PATH] [--target TRIPLE] [--dry-run]`:
// builds a server into one binary with its least-privilege permissions baked
// in (see compileServer in @forge/toolkit/permissions), and prints the
// `deno compile` command it ran. `deno compile` downloads its runtime
// (denort) from dl.deno.land; where that is unreachable the build fails, and
// this says so plainly.
import { parseArgs } from "node:util";
import { compileServer, type CompileServerResult } from "../permissions/compile_server.ts";

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
  console.error("usage: deno task compile <main.ts> [--config FILE] [--output PATH] [--target TRIPLE] [--dry-run]");
  Deno.exit(64);
}
let result: CompileServerResult;
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
console.log(result.commandLine);
if (result.error) console.error(result.error);
Deno.exit(values["dry-run"] || result.built ? 0 : 1);
