// test-permissions: --allow-read={repo}
// The library's folders form layers: each imports only folders below it, so a
// newcomer can read it bottom up and no change to a lower folder can need an
// upper one. This test reads every file's imports (static, re-exported, type
// only and dynamic) and names each edge that breaks a rule. docs/ARCHITECTURE.md
// describes the layers.

import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const repo = dirname(fileURLToPath(import.meta.url));

/** Bottom to top; a folder may import only folders of a lower line. `.` is the root `mod.ts`. */
const LAYERS: readonly (readonly string[])[] = [
  ["internal"],
  ["validate", "configreload", "jsonschema"],
  ["toolkit"],
  ["engine"],
  ["stdio"],
  ["middleware", "permissions"],
  ["runner"],
  ["."],
  ["testing"],
];

/** Folders that are not part of the published library. */
const APPS = new Set(["examples", "template", "bench", "scripts", "docs", "node_modules"]);

/** One import: who imports what, both relative to the repository. */
interface Edge {
  from: string;
  to: string;
}

/**
 * The specifiers `text` imports: `import`/`export … from` at the start of a
 * line (a JSDoc example's ` * import` is not one) and `import("…")` with a
 * literal, outside comments.
 */
export function specifiersOf(text: string): string[] {
  const code = text.replaceAll(/\/\*[\s\S]*?\*\//g, "").replaceAll(/^\s*\/\/.*$/gm, "");
  const found: string[] = [];
  for (const [, specifier] of code.matchAll(/^(?:import|export)\s(?:[^;"]*?\sfrom\s+)?"([^"]+)"/gm)) {
    found.push(specifier);
  }
  for (const [, specifier] of code.matchAll(/\bimport\(\s*"([^"]+)"\s*\)/g)) found.push(specifier);
  return found;
}

async function importMap(configFile: string): Promise<Map<string, string>> {
  const config = JSON.parse(await Deno.readTextFile(join(repo, configFile)));
  const base = dirname(configFile);
  const map = new Map<string, string>();
  for (const [key, value] of Object.entries(config.imports as Record<string, string>)) {
    if (value.startsWith(".")) map.set(key, normalize(join(base, value)));
  }
  return map;
}

async function allEdges(): Promise<Edge[]> {
  const maps = { root: await importMap("deno.json"), template: await importMap("template/deno.json") };
  const edges: Edge[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(join(repo, dir))) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.name.startsWith(".") || entry.name === "node_modules" || path === "bench/results") continue;
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        const map = path.startsWith("template/") ? maps.template : maps.root;
        for (const specifier of specifiersOf(await Deno.readTextFile(join(repo, path)))) {
          const to = specifier.startsWith(".") ? normalize(join(dirname(path), specifier)) : map.get(specifier);
          if (to !== undefined) edges.push({ from: path, to });
        }
      }
    }
  }
  await walk("");
  return edges;
}

const edges = await allEdges();

/** The library folder a path belongs to (`.` for a file at the root), or undefined for an app folder. */
function folderOf(path: string): string | undefined {
  const top = path.includes("/") ? path.slice(0, path.indexOf("/")) : ".";
  return APPS.has(top) ? undefined : top;
}

/** A file the package ships: in a library folder, neither a test nor test data. */
function isProduct(path: string): boolean {
  return folderOf(path) !== undefined && !path.endsWith("_test.ts") && !path.split("/").includes("testdata");
}

const layerOf = new Map(LAYERS.flatMap((line, index) => line.map((folder) => [folder, index] as const)));
const productEdges = edges.filter((e) => isProduct(e.from) && folderOf(e.to) !== folderOf(e.from));
const show = (e: Edge) => `${e.from} → ${e.to}`;

/** The cycles of the folder graph, each as its folders and one import per step. */
export function folderCycles(list: readonly Edge[]): string[] {
  const next = new Map<string, Map<string, Edge>>();
  for (const e of list) {
    const [a, b] = [folderOf(e.from) ?? e.from, folderOf(e.to) ?? e.to];
    if (!next.has(a)) next.set(a, new Map());
    if (!next.get(a)!.has(b)) next.get(a)!.set(b, e);
  }
  const cycles = new Set<string>();
  const walk = (start: string, at: string, path: Edge[], seen: Set<string>): void => {
    for (const [to, e] of next.get(at) ?? []) {
      const steps = [...path, e];
      if (to === start) {
        const names = steps.map((step) => folderOf(step.from) ?? step.from);
        cycles.add(`${[...names, start].join(" → ")} (${steps.map(show).join("; ")})`);
      } else if (!seen.has(to) && to > start) walk(start, to, steps, new Set([...seen, to]));
    }
  };
  // Each cycle is entered from its smallest folder only, so it is reported once.
  for (const start of next.keys()) walk(start, start, [], new Set([start]));
  return [...cycles].sort();
}

Deno.test("specifiersOf() reads static, multi-line, re-exported, type-only and dynamic imports, and skips comments", () => {
  const text = [
    'import { a } from "./a.ts";',
    "import {",
    "  b,",
    '} from "../b/b.ts";',
    'export { c } from "./c.ts";',
    'import type { D } from "./d.ts";',
    'import "./e.ts";',
    '  const f = await import("./f.ts");',
    '// import { g } from "./g.ts";',
    '/** @example\n * import { h } from "./h.ts";\n */',
    "/* import('./i.ts') */",
  ].join("\n");
  assert.deepEqual(specifiersOf(text), ["./a.ts", "../b/b.ts", "./c.ts", "./d.ts", "./e.ts", "./f.ts"]);
});

Deno.test("folderCycles() names a cycle once, with one import for each step", () => {
  const cycles = folderCycles([
    { from: "toolkit/run.ts", to: "validate/policy.ts" },
    { from: "validate/limits.ts", to: "toolkit/tool_error.ts" },
    { from: "validate/policy.ts", to: "internal/quote.ts" },
  ]);
  assert.deepEqual(cycles, [
    "toolkit → validate → toolkit (toolkit/run.ts → validate/policy.ts; validate/limits.ts → toolkit/tool_error.ts)",
  ]);
});

Deno.test("the imports were read: every library folder and the examples have some", () => {
  const from = new Set(edges.map((e) => e.from.split("/")[0]));
  for (const folder of ["internal", "validate", "toolkit", "stdio", "permissions", "testing", "examples", "template"]) {
    assert.ok(from.has(folder), `no import read from ${folder}/`);
  }
  assert.ok(productEdges.length > 50, `only ${productEdges.length} imports between library folders`);
});

Deno.test("library folders form no cycle", () => {
  const cycles = folderCycles(productEdges);
  assert.deepEqual(cycles, [], `folder cycles:\n${cycles.join("\n")}`);
});

Deno.test("each library folder imports only folders of a lower layer", () => {
  const unknown = [...new Set(productEdges.flatMap((e) => [folderOf(e.from)!, folderOf(e.to)!]))]
    .filter((folder) => !layerOf.has(folder));
  assert.deepEqual(unknown, [], "folders with no layer: add them to LAYERS and docs/ARCHITECTURE.md");
  const upward = productEdges.filter((e) => layerOf.get(folderOf(e.to)!)! >= layerOf.get(folderOf(e.from)!)!)
    .map((e) => `${show(e)}: ${folderOf(e.from)} is not above ${folderOf(e.to)}`);
  assert.deepEqual(upward, [], `imports that do not go down:\n${upward.join("\n")}`);
});

Deno.test("no file imports another folder's _private.ts (examples, template and tests included)", () => {
  const leaks = edges.filter((e) => e.to.split("/").at(-1)!.startsWith("_") && dirname(e.from) !== dirname(e.to))
    .map(show);
  assert.deepEqual(leaks, [], `imports of another folder's private file:\n${leaks.join("\n")}`);
});

Deno.test("no shipped file imports testing/", () => {
  const shipped = edges.filter((e) => isProduct(e.from) && folderOf(e.from) !== "testing")
    .filter((e) => folderOf(e.to) === "testing").map(show);
  assert.deepEqual(shipped, [], `shipped code that imports the test package:\n${shipped.join("\n")}`);
});
