import { type Infer, json, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { SEARCH_DEFAULTS, SEARCH_LIMITS } from "../domain/search.ts";
import { entrySchema } from "./_entry_schema.ts";
import { clientRootsOf } from "./_client_roots.ts";

const d = SEARCH_DEFAULTS;

const input = schema({
  path: strProp("The folder to search: relative to the first root (`.`), or absolute inside a root", { minLength: 1 }),
  pattern: strProp("A name glob (`*`, `?`) or a substring of the name", { minLength: 1, maxLength: 255 }),
}, ["path", "pattern"]);
type Input = Infer<typeof input>;

/** `search_files {path, pattern}`: names under a folder, bounded in depth, count and time. */
export const searchFilesTool: Tool<Input> = {
  name: "search_files",
  title: "Find files by name",
  description: "Finds files and folders under `path` whose NAME matches `pattern`, ignoring case. With `*` or " +
    "`?` the pattern is a glob over the whole name (`*.md`, `report-??.csv`); without, it matches names that " +
    "contain it (`todo`). It does not search file contents. Symbolic links are never followed and denied " +
    `folders are skipped. Bounded: ${d.maxDepth} levels deep, ${d.maxResults} matches, ${d.maxEntries} entries ` +
    `looked at, ${d.timeMs / 1000} s; when cut short, \`truncated\` is true and \`limits_hit\` says which ` +
    "bound: search a narrower folder. Paths are relative to `root`.",
  inputSchema: input,
  outputSchema: schema({
    root: strProp("The root the folder lies in"),
    path: strProp("The folder searched, relative to the root"),
    pattern: strProp("The pattern"),
    matches: { type: "array", items: entrySchema },
    truncated: { type: "boolean" },
    limits_hit: {
      type: "array",
      items: { type: "string", enum: [...SEARCH_LIMITS] },
    },
  }, ["root", "path", "pattern", "matches", "truncated", "limits_hit"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 15_000,
};

/**
 * The handler of {@linkcode searchFilesTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function searchFiles(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { path, pattern } = req.arguments;
    return json({ ...await mgr.search(path, pattern, req.signal, await clientRootsOf(req)) });
  };
}
