// What a surface watches and what its judge knows, from the server's scope
// (its flags, or what the author stated) and the kit's options.
import { dirname, resolve } from "node:path";
import type { SurfaceSettings } from "./_surface.ts";
import type { World } from "./_world.ts";
import type { AttackScope } from "./target.ts";

/** The options a surface depends on, resolved. */
export interface Watching {
  deadlineMs: number;
  maxRssBytes: number | undefined;
  watch: readonly string[];
  writable: readonly string[];
  maxWatchedEntries: number;
  plant: boolean;
  repositories: readonly string[];
  logs: readonly string[];
}

/** A path with at least two segments, so that a prefix such as `/tmp` or `/` never matches everything. */
function specific(path: string): boolean {
  return path.split("/").filter(Boolean).length >= 2;
}

function cwd(): string | undefined {
  try {
    return Deno.cwd();
  } catch {
    return undefined;
  }
}

/** Plants the world's canaries around the scope's folders (once per world) and builds the settings. */
export function settingsFor(
  world: World,
  scope: AttackScope,
  options: Watching,
  pollution: boolean,
  notes: string[],
): SurfaceSettings {
  const roots = [...scope.read, ...scope.write].map((p) => resolve(p));
  if (options.plant && !world.plantedOnce) {
    world.plantedOnce = true;
    notes.push(...world.plant(roots.filter((r) => r !== "/")));
    notes.push(...world.plantRepositories(options.repositories.map((p) => resolve(p))));
  }
  const watch = [
    world.dir,
    ...world.planted,
    ...roots.filter((r) => r !== "/"),
    ...options.watch.map((p) => resolve(p)),
  ];
  const sensitive = [
    world.dir,
    ...world.planted.filter((p) => !p.endsWith("forge-attack-link") && !p.endsWith("forge-attack-dir")),
    ...roots.map((r) => dirname(r)),
    cwd(),
    dirname(Deno.execPath()),
  ].filter((p): p is string => p !== undefined && specific(p));
  return {
    watch: [...new Set(watch)],
    maxWatchedEntries: options.maxWatchedEntries,
    pollution,
    logs: options.logs.map((p) => resolve(p)),
    ground: {
      secret: world.secret,
      marker: world.marker,
      writable: [...scope.write, ...options.writable].map((p) => resolve(p)),
      roots,
      sensitive: [...new Set(sensitive)].sort((a, b) => b.length - a.length),
      deadlineMs: options.deadlineMs,
      maxRssBytes: options.maxRssBytes,
    },
  };
}
