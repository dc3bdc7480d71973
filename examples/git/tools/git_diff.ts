import { type Infer, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
  from: strProp("Compare against this revision (default: the index)"),
  to: strProp("Compare from..to instead of the work tree (needs from)"),
  path: strProp("Only this path (relative to the work tree)"),
}, ["repo"]);

/** `git_diff`: changes between the work tree, the index and revisions. */
export const gitDiffTool: Tool<Infer<typeof input>> = {
  name: "git_diff",
  title: "Diff",
  description:
    "Shows a unified diff in a configured repository: the work tree against the index; with `from`, against that revision; with `from` and `to`, between them.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
};

/**
 * The handler of {@linkcode gitDiffTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitDiff(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.diff(a.repo, a.from, a.to, a.path, req.signal));
  };
}
