// `deno task new <dir> [--name <server>] [--jsr | --local]`: a new server
// from template/, renamed, importing this version of @forge/toolkit from JSR
// when JSR can serve it, else from this checkout, so its tests pass either way.

import { parseArgs } from "node:util";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { quote } from "../internal/quote.ts";
import { shellQuote } from "../internal/shell_quote.ts";
import { copyTemplate } from "./_copy_template.ts";
import { newTargetProblem } from "./_new_target.ts";

const TEMPLATE_NAME = "my-server";
const SKIP = ["deno.lock", "dist", "node_modules"];
const JSR_TIMEOUT_MS = 5_000;
/** The notes folder the new project starts with, which the printed `start` line points NOTES_DIR at. */
const NOTES_DIR = "notes";

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const template = join(repo, "template");
const version = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))).version as string;

const USAGE = `Usage: deno task new <dir> [options]

Creates an MCP server project in <dir> (absent or empty, outside this checkout) from template/, with an empty
notes/ folder for the notes it keeps.

Options:
  --name <server>  the server's name (default: the folder's name): 1-64 letters, digits, "_" or "-"
  --jsr            import @forge/toolkit@${version} from JSR, without checking that JSR can serve it
  --local          import @forge/toolkit from this checkout (${pathToFileURL(repo).href}/)
  -h, --help       print this help and exit

Without --jsr or --local, the toolkit comes from JSR when jsr.io lists @forge/toolkit@${version}
(asked once, ${JSR_TIMEOUT_MS / 1000} s at most), else from this checkout, and a line on stderr says which.`;

let parsed;
try {
  parsed = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      name: { type: "string" },
      jsr: { type: "boolean", default: false },
      local: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
} catch (err) {
  console.error(`Cannot create the server: ${(err as Error).message}\n\n${USAGE}`);
  Deno.exit(64);
}
const { values, positionals } = parsed;
if (values.help) {
  console.log(USAGE);
  Deno.exit(0);
}
if (positionals.length !== 1 || (values.jsr && values.local)) {
  console.error(
    `Cannot create the server: ${
      positionals.length !== 1 ? "give exactly one folder" : "--jsr and --local exclude each other"
    }\n\n${USAGE}`,
  );
  Deno.exit(64);
}
const target = resolve(positionals[0]);
const name = values.name ?? basename(target);
if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(name)) {
  console.error(
    `Cannot create the server: the name ${quote(name)} is not 1-64 letters, digits, "_" or "-"`,
  );
  Deno.exit(64);
}
const taken = await newTargetProblem(target, repo);
if (taken !== undefined) {
  console.error(`Cannot create the server: ${quote(target, 200)} ${taken}`);
  Deno.exit(1);
}

const local = values.local || (!values.jsr && !(await onJsr()));
try {
  await copyTemplate(template, target, {
    skip: SKIP,
    rewrite: (path, text) => {
      const renamed = text.replaceAll(TEMPLATE_NAME, name);
      return path === "deno.json" ? pointImports(renamed, local) : renamed;
    },
    // The folder the printed `deno task start` line serves: without it the first write_note is refused.
    emptyFolders: [NOTES_DIR],
  });
} catch (err) {
  // Checked empty above, the folder can still fill while JSR is asked: nothing in it is overwritten.
  console.error(`Cannot create the server: ${(err as Error).message}`);
  Deno.exit(1);
}

const near = relative(Deno.cwd(), target);
const shown = near === "" ? "." : near.startsWith("..") ? target : near;
console.log(`Created ${name} in ${shown} (@forge/toolkit ${local ? `from ${repo}` : `${version} from JSR`}). Next:\n`);
// Quoted as every printed command is: a folder named `a b $(…)` pasted bare would run the substitution.
console.log(`  cd ${shellQuote(shown)}`);
console.log("  deno task test");
console.log(`  NOTES_DIR=$PWD/${NOTES_DIR} deno task start`);

/** Whether JSR lists this version; says on stderr when it does not and the checkout is used instead. */
async function onJsr(): Promise<boolean> {
  const url = "https://jsr.io/@forge/toolkit/meta.json";
  let reason: string;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(JSR_TIMEOUT_MS) });
    if (res.ok && version in ((await res.json()).versions ?? {})) return true;
    await res.body?.cancel();
    reason = res.ok ? `JSR has no @forge/toolkit@${version}` : `JSR answered ${res.status}`;
  } catch (err) {
    reason = err instanceof DOMException ? `JSR did not answer in ${JSR_TIMEOUT_MS / 1000} s` : "JSR cannot be reached";
  }
  console.error(`new: ${reason}; importing @forge/toolkit from this checkout instead (--jsr forces JSR)`);
  return false;
}

/** The template's deno.json with its in-repo imports of the toolkit pointed at JSR or this checkout. */
function pointImports(text: string, fromCheckout: boolean): string {
  const config = JSON.parse(text);
  const imports = config.imports as Record<string, string>;
  for (const [specifier, path] of Object.entries(imports)) {
    if (!specifier.startsWith("@forge/toolkit")) continue;
    if (fromCheckout) {
      imports[specifier] = pathToFileURL(resolve(template, path)).href;
    } else {
      const sub = specifier.slice("@forge/toolkit".length);
      imports[specifier] = `jsr:@forge/toolkit@${version}${sub}`;
    }
  }
  return JSON.stringify(config, null, 2) + "\n";
}
