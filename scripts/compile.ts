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
import { configVariables } from "../configreload/config_variables.ts";

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

const flags = await printedFlags(entry, config);
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

/** The server's own answer to --print-permissions, with ${NAME} placeholders filled from this environment. */
async function printedFlags(entry: string, config: string | undefined): Promise<string[]> {
  const names = config === undefined ? [] : configVariables(await Deno.readFile(config));
  const env: Record<string, string> = { NO_COLOR: "1" };
  for (const name of names) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  const args = ["run", "--quiet", "--no-prompt"];
  if (config !== undefined) args.push(`--allow-read=${config}`);
  if (names.length > 0) args.push(`--allow-env=${names.join(",")}`);
  else args.push("--deny-run");
  args.push(entry, ...(config === undefined ? [] : ["-config", config]), "--print-permissions");
  const out = await new Deno.Command(Deno.execPath(), { args, env, clearEnv: true, stdin: "null" }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    console.error(new TextDecoder().decode(out.stderr));
    throw new Error(`Cannot read the permissions of ${entry}: --print-permissions exited ${out.code}`);
  }
  return splitShellWords(text).map((word) => word.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (m, n) => env[n] ?? m));
}

function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let quoted = false;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === "'") quoted = false;
      else word += c;
    } else if (c === "'") {
      quoted = true;
      inWord = true;
    } else if (c === "\\" && i + 1 < text.length) {
      word += text[++i];
      inWord = true;
    } else if (c === " ") {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

function shellQuote(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;
}
