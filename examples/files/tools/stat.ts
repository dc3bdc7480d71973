import { json, requireString, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { clientRootsOf } from "./_client_roots.ts";

/** `stat {path}`: type, size and modification time of a path. */
export const statTool: Tool = {
  name: "stat",
  title: "Describe a path",
  description: "Describes a file or folder inside the allowed folders: `type` (file, dir, other), `size` in " +
    "bytes and `modified` (ISO 8601). Links are resolved inside the allowed folders; `path` in the result is " +
    "relative to `root`.",
  inputSchema: schema({ path: strProp("The path: relative to the first root, or absolute inside a root") }, ["path"]),
  outputSchema: schema({
    root: strProp("The root the path lies in"),
    path: strProp("The path relative to the root"),
    type: { type: "string", enum: ["file", "dir", "other"] },
    size: { type: "integer" },
    modified: strProp("The last modification, ISO 8601 UTC (absent when the system does not record it)"),
  }, ["root", "path", "type", "size"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 5_000,
};

/**
 * The handler of {@linkcode statTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function stat(mgr: Manager): ToolHandler {
  return async (req) => json({ ...await mgr.stat(requireString(req.arguments, "path"), await clientRootsOf(req)) });
}
