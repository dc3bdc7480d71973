import { type Infer, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
}, ["repo"]);

/** `git_status`: branch and changed files of a repository's work tree. */
export const gitStatusTool: Tool<Infer<typeof input>> = {
  name: "git_status",
  title: "Status of a repository",
  description:
    "Shows the branch and the changed, staged and untracked files of a configured repository, as `git status --porcelain=v1 --branch`.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
};

/**
 * The handler of {@linkcode gitStatusTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitStatus(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.status(a.repo, req.signal));
  };
}
