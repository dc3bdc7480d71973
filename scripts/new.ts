// `deno task new <dir> [--name <server>] [--local]`: a new server from
// template/, renamed, with its imports pointed at this version of
// @forge/toolkit on JSR (or, with --local, at this checkout).

import { parseArgs } from "node:util";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const TEMPLATE_NAME = "my-server";
const SKIP = new Set(["deno.lock", "dist", "node_modules"]);
const TEXT = /\.(ts|json|jsonc|md)$/;

const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const template = join(repo, "template");

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: { name: { type: "string" }, local: { type: "boolean", default: false } },
});
if (positionals.length !== 1) {
  console.error("usage: deno task new <dir> [--name <server>] [--local]");
  Deno.exit(64);
}
const target = resolve(positionals[0]);
const name = values.name ?? basename(target);
if (!/^[a-z0-9][a-z0-9_-]{0,63}$/i.test(name)) {
  console.error(
    `Cannot create the server: the name ${JSON.stringify(name.slice(0, 64))} is not 1-64 letters, digits, "_" or "-"`,
  );
  Deno.exit(64);
}
if (await nonEmpty(target)) {
  console.error(`Cannot create the server: ${target} exists and is not empty`);
  Deno.exit(1);
}

const version = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))).version as string;
await copy(template, target);
await pointImports(join(target, "deno.json"));

const near = relative(Deno.cwd(), target);
const shown = near === "" ? "." : near.startsWith("..") ? target : near;
console.log(`Created ${name} in ${shown} (@forge/toolkit ${values.local ? `from ${repo}` : version}). Next:\n`);
console.log(`  cd ${shown}`);
console.log("  deno task test");
console.log("  NOTES_DIR=$PWD/notes deno task start");

async function nonEmpty(dir: string): Promise<boolean> {
  try {
    for await (const _ of Deno.readDir(dir)) return true;
    return false;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

async function copy(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (SKIP.has(entry.name)) continue;
    const source = join(from, entry.name);
    const dest = join(to, entry.name);
    if (entry.isDirectory) await copy(source, dest);
    else if (entry.isFile && TEXT.test(entry.name)) {
      await Deno.writeTextFile(dest, (await Deno.readTextFile(source)).replaceAll(TEMPLATE_NAME, name));
    } else if (entry.isFile) await Deno.copyFile(source, dest);
  }
}

/** Rewrites the template's in-repo imports of the toolkit. */
async function pointImports(file: string): Promise<void> {
  const config = JSON.parse(await Deno.readTextFile(file));
  const imports = config.imports as Record<string, string>;
  for (const [specifier, local] of Object.entries(imports)) {
    if (!specifier.startsWith("@forge/toolkit")) continue;
    if (values.local) {
      imports[specifier] = pathToFileURL(resolve(template, local)).href;
    } else {
      const sub = specifier.slice("@forge/toolkit".length);
      imports[specifier] = `jsr:@forge/toolkit@${version}${sub}`;
    }
  }
  await Deno.writeTextFile(file, JSON.stringify(config, null, 2) + "\n");
}
