import { requireString, schema, strProp, text, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/notes.ts";

/** The read-only tool: reads one note. */
export const readNoteTool: Tool = {
  name: "read_note",
  title: "Read a note",
  description: "Reads one note by name and returns its text. Read-only.",
  inputSchema: schema({ name: strProp("The note's name: letters, digits, '_' or '-'", { maxLength: 64 }) }, ["name"]),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 5_000,
};

/** Maps the arguments to the Manager. */
export function readNote(mgr: Manager): ToolHandler {
  return async (req) => text(await mgr.read(requireString(req.arguments, "name"), req.signal));
}
