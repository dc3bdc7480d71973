import { type Infer, intProp, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
  ref: strProp("The revision to start from (default HEAD): a branch, tag or hash"),
  path: strProp("Only commits that touch this path (relative to the work tree)"),
  max_count: intProp("How many commits, 1 to 1000 (default 20)", { minimum: 1, maximum: 1000 }),
}, ["repo"]);

/** `git_log`: commits, newest first. */
export const gitLogTool: Tool<Infer<typeof input>> = {
  name: "git_log",
  title: "History of a repository",
  description:
    "Lists commits of a configured repository, newest first: hash, author, ISO date and the full message. Output past the server's cap is cut, and a second text block says `[truncated: …]`.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
  // Over a large repository this can outlast a client's patience: a client
  // with the tasks extension gets a handle at once and polls.
  task: true,
};

/**
 * The handler of {@linkcode gitLogTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitLog(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.log(a.repo, { ref: a.ref, path: a.path, maxCount: a.max_count }, req.signal));
  };
}
