import { addTool, registerPatternTool, type Server } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
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
  addTool(server, gitStatusTool, gitStatus(mgr));
  addTool(server, gitLogTool, gitLog(mgr));
  addTool(server, gitShowTool, gitShow(mgr));
  addTool(server, gitDiffTool, gitDiff(mgr));
  addTool(server, gitGrepTool, gitGrep(mgr));
  addTool(server, gitBlameTool, gitBlame(mgr));
  registerPatternTool(server, gitCommitTool, gitCommitPatterns(mgr), gitCommit(mgr));
}
