import { type Infer, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
  pattern: strProp("An extended regular expression (POSIX ERE)", { minLength: 1, maxLength: 1000 }),
  ref: strProp("Search the files as of this revision instead of the work tree"),
  path: strProp("Only under this path (relative to the work tree)"),
}, ["repo", "pattern"]);

/** `git_grep`: lines of tracked text files matching a pattern. */
export const gitGrepTool: Tool<Infer<typeof input>> = {
  name: "git_grep",
  title: "Search tracked files",
  description:
    "Searches the tracked text files of a configured repository for an extended regular expression; prints `path:line:text` (with `ref`, `ref:path:line:text`). Binary files are skipped; no match is an empty answer. Bounded by the server's deadline and output cap.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
  // Over a large repository this can outlast a client's patience: a client
  // with the tasks extension gets a handle at once and polls.
  task: true,
};

/**
 * The handler of {@linkcode gitGrepTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitGrep(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.grep(a.repo, a.pattern, a.ref, a.path, req.signal));
  };
}
