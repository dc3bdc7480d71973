import { type Infer, schema, strProp, textWithNotice, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { clientRootsOf } from "./_client_roots.ts";

const input = schema({
  path: strProp("The file: relative to the first root, or absolute inside a root", { minLength: 1 }),
}, ["path"]);
type Input = Infer<typeof input>;

/** `read_file {path}`: a text file inside a root, cut at `max_bytes`, the marker in a block of its own. */
export const readFileTool: Tool<Input> = {
  name: "read_file",
  title: "Read a text file",
  description: "Reads a UTF-8 text file inside the allowed folders. `path` is relative to the first root, or an " +
    "absolute path inside any root. A file longer than the server's max_bytes is cut, and a second text block " +
    "says `[truncated: showed N of M bytes]`; a single block is the whole file. Binary files, folders and denied files (.env, .git, keys) are refused.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 10_000,
};

/**
 * The handler of {@linkcode readFileTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function readFile(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const read = await mgr.read(req.arguments.path, req.signal, await clientRootsOf(req));
    return textWithNotice(read.text, read.marker);
  };
}
