// Builds a server into one binary with its least-privilege permissions baked
// in. It asks the server itself for its flags (--print-permissions, with the
// given config), then runs `deno compile` with exactly those, the config
// embedded as the static fallback.
//
//   deno run --allow-run --allow-read --allow-env scripts/compile.ts <entry> \
//     [--config FILE] [--output PATH] [--target TRIPLE] [--dry-run]
//
// `deno compile` downloads its runtime (denort) from dl.deno.land; where that
// is unreachable the build fails, and this script says so plainly.

import { parseArgs } from "node:util";
import { basename, dirname, resolve } from "node:path";
import { compileArgs } from "../permissions/compile_args.ts";
import { configVariables } from "../configreload/mod.ts";
import { printedPermissions } from "../testing/mod.ts";

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
const entry = positionals[0];
if (!entry) {
  console.error("usage: compile.ts <entry> [--config FILE] [--output PATH] [--target TRIPLE] [--dry-run]");
  Deno.exit(64);
}
const config = values.config === undefined ? undefined : resolve(values.config);
const output = values.output ?? `dist/${basename(dirname(resolve(entry)))}`;

const flags = await printedPermissions({ script: entry, config, env: configEnv(config) });
const args = compileArgs({ entry, flags, output, config, target: values.target });
console.log(["deno", ...args].map(shellQuote).join(" "));
if (values["dry-run"]) Deno.exit(0);

const built = await new Deno.Command(Deno.execPath(), { args, stdout: "inherit", stderr: "piped" }).output();
const stderr = new TextDecoder().decode(built.stderr);
if (built.success) Deno.exit(0);
console.error(stderr);
if (/denort|dl\.deno\.land/.test(stderr)) {
  console.error(
    "deno compile needs its runtime (denort) from dl.deno.land, which this machine cannot reach. " +
      "The command above is exactly what would run; run it where the download works.",
  );
}
Deno.exit(1);

/** The values of the variables the config uses, from this environment. */
function configEnv(config: string | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  if (config === undefined) return env;
  for (const name of configVariables(Deno.readFileSync(config))) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return env;
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
