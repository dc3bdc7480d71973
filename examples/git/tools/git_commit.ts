import {
  arrayProp,
  type Infer,
  json,
  type PatternFn,
  schema,
  strProp,
  type Tool,
  type ToolHandler,
} from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";

const input = schema({
  repo: strProp("The repository, by its configured name (it must be writable)"),
  message: strProp("The commit message (at most 131,071 bytes of UTF-8)", { minLength: 1, maxLength: 65536 }),
  paths: arrayProp(strProp("A file, relative to the work tree"), "The files to commit, as they are in the work tree", {
    minItems: 1,
    maxItems: 1000,
  }),
}, ["repo", "message", "paths"]);

/** `git_commit {repo, message, paths}`: commits exactly those files of a writable repository. */
export const gitCommitTool: Tool<Infer<typeof input>> = {
  name: "git_commit",
  title: "Commit files",
  description: "Commits exactly the given files (their bytes in the work tree, converted only as the repository's " +
    ".gitattributes asks, e.g. CRLF to LF for text files: changed, new or deleted) to the current branch of a " +
    "repository configured as writable; other staged changes stay out of the commit. Hooks, signing and filters " +
    "never run; a repository whose config defines filter drivers is refused. Paths are relative to the work tree, " +
    "never inside .git. Permission pattern: `commit:<repo>`.",
  inputSchema: input,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  timeoutMs: 60_000,
};

/**
 * The permission patterns of a commit: `commit:<repo>`. A commit the server
 * would refuse (read-only repository, a path outside the work tree) has no
 * pattern: the probe answers with the refusal.
 *
 * @param mgr The manager.
 * @returns The pattern function.
 */
export function gitCommitPatterns(mgr: Manager): PatternFn<Infer<typeof input>> {
  return async (args) => ({ patterns: [`commit:${(await mgr.commitTarget(args.repo, args.paths)).repo}`] });
}

/**
 * The handler of {@linkcode gitCommitTool}.
 *
 * @param mgr The manager.
 * @returns The handler.
 */
export function gitCommit(mgr: Manager): ToolHandler<Infer<typeof input>> {
  return async (req) => {
    const { repo, message, paths } = req.arguments;
    return json({ ...await mgr.commit(repo, message, paths, req.signal) });
  };
}
