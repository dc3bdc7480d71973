import { type Infer, schema, strProp, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { outputResult } from "./_output.ts";

const input = schema({
  repo: strProp("The repository, by its configured name"),
  path: strProp("The file (relative to the work tree)"),
  ref: strProp("Blame the file as of this revision (default: the work tree)"),
}, ["repo", "path"]);

/** `git_blame`: who last changed each line of a file. */
export const gitBlameTool: Tool<Infer<typeof input>> = {
  name: "git_blame",
  title: "Blame a file",
  description:
    "Shows, for each line of a file in a configured repository, the commit, author and date that last changed it.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 30_000,
};

/**
 * The handler of {@linkcode gitBlameTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitBlame(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const a = req.arguments;
    return outputResult(await mgr.blame(a.repo, a.path, a.ref, req.signal));
  };
}
