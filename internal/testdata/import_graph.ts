// What a module brings with it, as `deno info --json` reports it: for tests
// that prove an import stays light (no npm package, no serving half, no schema
// engine until it is needed).

/** The modules an entry point reaches. */
export interface ImportGraph {
  /** Every module the graph holds, however it is reached (`import()` included). */
  modules: string[];
  /** The modules that importing the entry point evaluates: value imports only, not `import type`, not `import()`. */
  loaded: Set<string>;
}

interface Dependency {
  code?: { specifier: string };
  isDynamic?: boolean;
}

/** Reads the graph of `entry` (a path) through `deno info --json`; needs --allow-run and read access to the code. */
export async function importGraph(entry: string): Promise<ImportGraph> {
  const out = await new Deno.Command(Deno.execPath(), { args: ["info", "--json", entry], stdout: "piped" }).output();
  if (!out.success) throw new Error(`Cannot read the import graph: deno info exited ${out.code}`);
  const graph = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: Dependency[] }[];
  };
  const bySpecifier = new Map(graph.modules.map((m) => [m.specifier, m]));
  const loaded = new Set<string>();
  const next = [...graph.roots];
  for (let specifier = next.pop(); specifier !== undefined; specifier = next.pop()) {
    if (loaded.has(specifier)) continue;
    loaded.add(specifier);
    for (const dep of bySpecifier.get(specifier)?.dependencies ?? []) {
      if (dep.code !== undefined && !dep.isDynamic) next.push(dep.code.specifier);
    }
  }
  return { modules: graph.modules.map((m) => m.specifier), loaded };
}
