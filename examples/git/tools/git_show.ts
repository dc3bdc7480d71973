import { type Infer, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
  rev: strProp("The revision: a branch, tag or hash"),
  path: strProp("A file: shows its content as of rev instead of the commit"),
}, ["repo", "rev"]);

/** `git_show`: a commit with its diff, or a file as of a revision. */
export const gitShowTool: Tool<Infer<typeof input>> = {
  name: "git_show",
  title: "Show a commit or a file",
  description:
    "Shows a commit of a configured repository (header, message and diff as stored: no external diff or textconv), or with `path` the file's content as of `rev`.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
};

/**
 * The handler of {@linkcode gitShowTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitShow(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.show(a.repo, a.rev, a.path, req.signal));
  };
}
