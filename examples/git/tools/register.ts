import { addTool, registerPatternTool, type Server, type Tool } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { type GitTool, replyBytes } from "../domain/reply_bounds.ts";
import { gitBlame, gitBlameTool } from "./git_blame.ts";
import { gitCommit, gitCommitPatterns, gitCommitTool } from "./git_commit.ts";
import { gitDiff, gitDiffTool } from "./git_diff.ts";
import { gitGrep, gitGrepTool } from "./git_grep.ts";
import { gitLog, gitLogTool } from "./git_log.ts";
import { gitShow, gitShowTool } from "./git_show.ts";
import { gitStatus, gitStatusTool } from "./git_status.ts";

/**
 * Registers the seven git tools: six read-only, and `git_commit` as a
 * pattern tool (`commit:<repo>`).
 *
 * @param server The server from `run()`.
 * @param mgr The manager.
 */
export function registerAll(server: Server, mgr: Manager): void {
  // What a reply may take is reserved while a call runs: pipelined calls cannot build more than maxInFlightBytes.
  const bounded = <A>(tool: Tool<A>): Tool<A> => ({
    ...tool,
    maxResultBytes: (args) => replyBytes(tool.name as GitTool, mgr.maxOutputBytes, args),
  });
  addTool(server, bounded(gitStatusTool), gitStatus(mgr));
  addTool(server, bounded(gitLogTool), gitLog(mgr));
  addTool(server, bounded(gitShowTool), gitShow(mgr));
  addTool(server, bounded(gitDiffTool), gitDiff(mgr));
  addTool(server, bounded(gitGrepTool), gitGrep(mgr));
  addTool(server, bounded(gitBlameTool), gitBlame(mgr));
  registerPatternTool(server, bounded(gitCommitTool), gitCommitPatterns(mgr), gitCommit(mgr));
}
