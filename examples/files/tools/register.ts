import { addTool, registerPatternTool, type Server } from "@forge/toolkit";
import type { Manager } from "../domain/manager.ts";
import { listDir, listDirTool } from "./list_dir.ts";
import { readFile, readFileTool } from "./read_file.ts";
import { searchFiles, searchFilesTool } from "./search_files.ts";
import { stat, statTool } from "./stat.ts";
import { writeFile, writeFileConfirm, writeFilePatterns, writeFileTool } from "./write_file.ts";

/**
 * Registers the five file tools: four read-only, and `write_file` as a
 * pattern tool (`write:<path>`) that asks the user before it replaces an
 * existing file, when the client can ask. Every tool narrows the configured
 * roots to the client's roots when it declares any.
 *
 * @param server The server from `run()`.
 * @param mgr The manager.
 */
export function registerAll(server: Server, mgr: Manager): void {
  // What a reply may take is reserved while a call runs: pipelined reads cannot build more than maxInFlightBytes.
  addTool(server, { ...readFileTool, maxResultBytes: () => mgr.readReplyBytes() }, readFile(mgr));
  addTool(server, listDirTool, listDir(mgr));
  addTool(server, statTool, stat(mgr));
  addTool(server, { ...searchFilesTool, maxResultBytes: () => mgr.searchReplyBytes() }, searchFiles(mgr));
  // Replacing a file asks the user first when the client can ask; a client that cannot gets today's behaviour.
  registerPatternTool(server, writeFileTool, writeFilePatterns(mgr), writeFile(mgr), {
    confirm: writeFileConfirm(mgr),
    whenUnconfirmable: "run",
  });
}
