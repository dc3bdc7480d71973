import { type Infer, json, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { clientRootsOf } from "./_client_roots.ts";

const input = schema({
  path: strProp("The path: relative to the first root, or absolute inside a root", { minLength: 1 }),
}, ["path"]);
type Input = Infer<typeof input>;

/** `stat {path}`: type, size and modification time of a path. */
export const statTool: Tool<Input> = {
  name: "stat",
  title: "Describe a path",
  description: "Describes a file or folder inside the allowed folders: `type` (file, dir, other), `size` in " +
    "bytes and `modified` (ISO 8601). Links are resolved inside the allowed folders; `path` in the result is " +
    "relative to `root`.",
  inputSchema: input,
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
export function stat(mgr: Manager): ToolHandler<Input> {
  return async (req) => json({ ...await mgr.stat(req.arguments.path, await clientRootsOf(req)) });
}
