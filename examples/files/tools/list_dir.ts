import { type Infer, json, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { LIST_TIME_MS } from "../domain/files.ts";
import { entrySchema } from "./_entry_schema.ts";
import { clientRootsOf } from "./_client_roots.ts";

const input = schema({
  path: strProp("The folder: relative to the first root, or absolute inside a root", { minLength: 1 }),
}, ["path"]);
type Input = Infer<typeof input>;

/** `list_dir {path}`: the entries of a folder, paths relative to their root. */
export const listDirTool: Tool<Input> = {
  name: "list_dir",
  title: "List a folder",
  description: "Lists a folder inside the allowed folders (`.` is the first root). Each entry has `name`, `path` " +
    "(relative to `root`), `type` (file, dir, symlink, other) and `size` for files. Symbolic links are shown, " +
    "never followed; denied entries are left out; at most 1000 entries (then `truncated` is true). Entries " +
    "no path can name (a control character or bytes that are not UTF-8 in the name) are counted in `unlisted`.",
  inputSchema: input,
  outputSchema: schema({
    root: strProp("The root the folder lies in"),
    path: strProp("The folder, relative to the root"),
    entries: { type: "array", items: entrySchema },
    truncated: { type: "boolean" },
    unlisted: { type: "integer", description: "Entries left out because no path can name them" },
  }, ["root", "path", "entries", "truncated"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: LIST_TIME_MS,
};

/**
 * The handler of {@linkcode listDirTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function listDir(mgr: Manager): ToolHandler<Input> {
  return async (req) => json({ ...await mgr.list(req.arguments.path, req.signal, await clientRootsOf(req)) });
}
