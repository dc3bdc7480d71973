// The path arithmetic of the over-privilege check, apart from the other
// probes: node:path is loaded only for a policy that names paths, because
// loading it is a large part of the start of a server that names none
// (docs/benchmarks.md, "Cold start").

import { dirname, isAbsolute, relative, sep } from "node:path";

/** Every folder above each anchor, below the root. */
export function ancestorsOf(anchors: readonly string[]): string[] {
  const out = new Set<string>();
  for (const anchor of anchors) {
    for (let dir = dirname(anchor); dir !== dirname(dir); dir = dirname(dir)) out.add(dir);
  }
  return [...out];
}

/** Whether `path` is one of `roots` or inside one, compared by segments. */
export function pathCovered(roots: readonly string[], path: string): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
  });
}
