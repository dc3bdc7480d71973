// test-permissions: --allow-read={repo}
// The code blocks of README.md and docs/ are what a reader copies. The names
// they import must exist where they import them from: a full type-check of the
// blocks cannot serve (most are fragments), so this reads the exports of the
// entry points and of the files the relative imports name, following
// re-exports. A block that is a whole module runs here, as it is written.

import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(fileURLToPath(import.meta.url));
const { exports } = JSON.parse(await Deno.readTextFile(join(repo, "deno.json"))) as {
  exports: Record<string, string>;
};

/** One `import { … } from "…"` of a code block. */
interface DocImport {
  doc: string;
  names: string[];
  specifier: string;
}

/** The `ts` code blocks of a Markdown text. */
function codeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```(?:ts|typescript)\b[^\n]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** The named imports of a code block, `type` and `as` removed. */
function importsOf(doc: string, code: string): DocImport[] {
  return [...code.matchAll(/^import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/gm)].map((m) => ({
    doc,
    names: m[1].split(",").map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]).filter(Boolean),
    specifier: m[2],
  }));
}

/** The names a TypeScript file exports, its `export … from` and `export * from` followed. */
async function exportedNames(file: string, seen = new Set<string>()): Promise<Set<string>> {
  const names = new Set<string>();
  if (seen.has(file)) return names;
  seen.add(file);
  const code = (await Deno.readTextFile(file)).replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/^\s*\/\/.*$/gm, "");
  for (
    const [, name] of code.matchAll(
      /^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|class|const|let|interface|type|enum)\s+(\w+)/gm,
    )
  ) {
    names.add(name);
  }
  // `export { a, b as c } from "./x.ts"` and a local `export { a }` alike: the names after `as` are the exports.
  for (const [, list] of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}/gm)) {
    for (const item of list.split(",").map((n) => n.trim().replace(/^type\s+/, "")).filter(Boolean)) {
      names.add(item.split(/\s+as\s+/).at(-1)!);
    }
  }
  for (const [, from] of code.matchAll(/^export\s+\*\s+from\s+"([^"]+)"/gm)) {
    for (const name of await exportedNames(normalize(join(dirname(file), from)), seen)) names.add(name);
  }
  return names;
}

/** Whether `path` is a file (false when it does not exist). */
function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/** The entry point file of `@forge/toolkit[/sub]`, written bare, with `jsr:` or with a version. */
function entryFile(specifier: string): string | undefined {
  const match = /^(?:jsr:)?@forge\/toolkit(?:@[^/]+)?(\/.*)?$/.exec(specifier);
  if (match === null) return undefined;
  const path = exports[`.${match[1] ?? ""}`];
  return path === undefined ? undefined : join(repo, path);
}

const examples = [...Deno.readDirSync(join(repo, "examples"))].filter((e) => e.isDirectory).map((e) => e.name);
const docs = ["README.md", ...[...Deno.readDirSync(join(repo, "docs"))].map((e) => `docs/${e.name}`)]
  .filter((path) => path.endsWith(".md"));
// The READMEs of the template and the examples too, for what they import from the toolkit (their relative
// imports are written from files of their own folders, which the blocks do not name).
const readmes = ["template/README.md", ...examples.map((name) => `examples/${name}/README.md`)]
  .filter((path) => isFile(join(repo, path)));
const imports = (await Promise.all([...docs, ...readmes].map(async (doc) => {
  const text = await Deno.readTextFile(join(repo, doc));
  return codeBlocks(text).flatMap((code) => importsOf(doc, code));
}))).flat();

Deno.test("importsOf() reads named, type-only, renamed and multi-line imports of a code block", () => {
  const code = 'import { a, type B, c as d } from "@forge/toolkit";\nimport {\n  e,\n} from "./x.ts";\n';
  assert.deepEqual(importsOf("d.md", code), [
    { doc: "d.md", names: ["a", "B", "c"], specifier: "@forge/toolkit" },
    { doc: "d.md", names: ["e"], specifier: "./x.ts" },
  ]);
});

Deno.test("every name a doc block imports from @forge/toolkit is exported by that entry point", async () => {
  const toolkit = imports.filter((i) => /^(jsr:)?@forge\/toolkit/.test(i.specifier));
  assert.ok(toolkit.length > 10, `only ${toolkit.length} imports read`);
  const missing: string[] = [];
  for (const { doc, names, specifier } of toolkit) {
    const file = entryFile(specifier);
    if (file === undefined) {
      missing.push(`${doc}: ${specifier} is no entry point`);
      continue;
    }
    const exported = await exportedNames(file);
    for (const name of names) if (!exported.has(name)) missing.push(`${doc}: ${specifier} exports no ${name}`);
  }
  assert.deepEqual(missing, []);
});

Deno.test("every name a doc block imports from a relative path exists there in the template or an example", async () => {
  const homes = ["template", ...examples.map((name) => `examples/${name}`)];
  const missing: string[] = [];
  for (const { doc, names, specifier } of imports.filter((i) => i.specifier.startsWith(".") && docs.includes(i.doc))) {
    for (const name of names) {
      let found = false;
      for (const home of homes) {
        const file = join(repo, home, specifier);
        if (!(await Deno.stat(file).then((s) => s.isFile, () => false))) continue;
        if ((await exportedNames(file)).has(name)) found = true;
      }
      if (!found) missing.push(`${doc}: no template or example file ${specifier} exports ${name}`);
    }
  }
  assert.deepEqual(missing, []);
});

Deno.test("ARCHITECTURE.md's runWithConfig() main.ts is the template's: each of its imports and options is there", async () => {
  const architecture = await Deno.readTextFile(join(repo, "docs/ARCHITECTURE.md"));
  const block = codeBlocks(architecture).find((code) => code.includes("await runWithConfig("));
  assert.ok(block !== undefined, "ARCHITECTURE.md shows a runWithConfig() main.ts");
  const template = (await Deno.readTextFile(join(repo, "template/main.ts"))).split("\n").map((l) => l.trim());
  const lines = block.split("\n").map((line) => line.replace(/\s+\/\/ .*$/, "").trim())
    .filter((line) => line.startsWith("import ") || /^\w+: /.test(line));
  assert.ok(lines.length >= 8, block);
  for (const line of lines) assert.ok(template.includes(line), `template/main.ts has no line ${JSON.stringify(line)}`);
});

Deno.test("ARCHITECTURE.md's policyFor() and docsJail() start a relative folder at the config file's folder, not the working directory", async () => {
  const architecture = await Deno.readTextFile(join(repo, "docs/ARCHITECTURE.md"));
  const block = codeBlocks(architecture).find((code) => code.includes("export function docsJail("));
  assert.ok(block !== undefined, "ARCHITECTURE.md shows docsJail()");
  // The block as a module of its own: its imports resolve through this repository's import map.
  const { policyFor, docsJail } = await import(
    `data:application/typescript;base64,${new TextEncoder().encode(block).toBase64()}`
  );
  const configFile = join(repo, "examples", "config.json");
  const config = { notes_dir: "notes", docs_dir: "hello-tool" };
  const policy = policyFor(config, configFile, []);
  assert.deepEqual(policy.readRoots, [join(repo, "examples", "notes"), join(repo, "examples", "hello-tool")]);
  const jail = docsJail(config, configFile);
  assert.equal(await jail.resolveRead("main.ts"), join(repo, "examples", "hello-tool", "main.ts"));
});
