import { type Args, requireString, schema, strProp, text, type Tool, type ToolHandler } from "@forge/toolkit";
import { fileOf, type Manager } from "../domain/notes.ts";

/** The side-effecting tool: creates or replaces one note. */
export const writeNoteTool: Tool = {
  name: "write_note",
  title: "Write a note",
  description: "Creates or replaces one note. Asks for approval with the pattern write:note/<name>.",
  inputSchema: schema({
    name: strProp("The note's name: letters, digits, '_' or '-'", { maxLength: 64 }),
    content: strProp("The note's new text"),
  }, ["name", "content"]),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  timeoutMs: 5_000,
};

/** The approval patterns: exactly which note the call would write. No side effects. */
export function writeNotePatterns(args: Args): { patterns: string[] } {
  const name = requireString(args, "name");
  fileOf(name); // refuse a bad name in the probe too
  return { patterns: [`write:note/${name}`] };
}

/** Maps the arguments to the Manager. */
export function writeNote(mgr: Manager): ToolHandler {
  return async (req) => {
    const name = requireString(req.arguments, "name");
    const content = requireString(req.arguments, "content");
    await mgr.write(name, content, req.signal);
    return text(`Wrote note "${name}" (${new TextEncoder().encode(content).length} bytes)`);
  };
}
