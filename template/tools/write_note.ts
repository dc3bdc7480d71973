import { type Infer, schema, strProp, text, type Tool, type ToolHandler } from "@forge/toolkit";
import { fileOf, type Manager } from "../domain/notes.ts";

const input = schema({
  name: strProp("The note's name: letters, digits, '_' or '-'", { maxLength: 64 }),
  content: strProp("The note's new text"),
}, ["name", "content"]);

/** The arguments, checked against the schema before any code below runs. */
type Input = Infer<typeof input>;

/** The side-effecting tool: creates or replaces one note. */
export const writeNoteTool: Tool<Input> = {
  name: "write_note",
  title: "Write a note",
  description: "Creates or replaces one note. Asks for approval with the pattern write:note/<name>.",
  inputSchema: input,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  timeoutMs: 5_000,
};

/** The approval patterns: exactly which note the call would write. No side effects. */
export function writeNotePatterns(args: Input): { patterns: string[] } {
  fileOf(args.name); // refuse a bad name in the probe too
  return { patterns: [`write:note/${args.name}`] };
}

/** Maps the arguments to the Manager. */
export function writeNote(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { name, content } = req.arguments;
    await mgr.write(name, content, req.signal);
    return text(`Wrote note "${name}" (${new TextEncoder().encode(content).length} bytes)`);
  };
}
