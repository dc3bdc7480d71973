// node:fs, loaded at its first use instead of at start: node:fs loads Deno's
// Node streams with it (alone, 125 ms of CPU to start against 70 for an empty
// file), which a process that never opens a file by descriptor paid at every
// start: a sqlite example's database process, which imports the validate
// folder for its SQL checks, starts in 118 ms of CPU instead of 136.
import type * as NodeFs from "node:fs";

let loaded: typeof NodeFs | undefined;

/**
 * The node:fs module, loaded (synchronously) the first time it is asked for.
 *
 * @returns node:fs.
 *
 * @example Open flags and calls, as `import fs from "node:fs"` gives them
 * ```ts
 * import { nodeFs } from "./node_fs.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(typeof nodeFs().openSync, "function");
 * assert.equal(typeof nodeFs().constants.O_NONBLOCK, "number");
 * ```
 */
export function nodeFs(): typeof NodeFs {
  // process.getBuiltinModule() (Node 22.3+, Deno 2) loads a built-in module synchronously, where import() is async.
  return loaded ??= (globalThis as unknown as { process: { getBuiltinModule(id: string): unknown } }).process
    .getBuiltinModule("node:fs") as typeof NodeFs;
}
