import { addTool, registerPatternTool, type Server } from "@forge/toolkit";
import type { Manager } from "../domain/notes.ts";
import { readNote, readNoteTool } from "./read_note.ts";
import { writeNote, writeNotePatterns, writeNoteTool } from "./write_note.ts";

/** Adds every tool of this server: one line per tool. */
export function registerAll(server: Server, mgr: Manager): void {
  addTool(server, readNoteTool, readNote(mgr));
  registerPatternTool(server, writeNoteTool, writeNotePatterns(mgr), writeNote(mgr));
}
