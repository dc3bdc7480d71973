import { type Infer, type PatternFn, schema, strProp, text, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/notes.ts";

const input = schema({
  name: strProp("The note's name: lower-case letters, digits, '_' or '-'", { maxLength: 64 }),
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

/**
 * The approval patterns: exactly which note the call would write. No side
 * effects: a write the call would refuse (a bad name, content over the limit,
 * a link or folder at the note's place) is refused here too, writing nothing.
 */
export function writeNotePatterns(mgr: Manager): PatternFn<Input> {
  // The call's signal: its deadline or a cancellation stops the check as it stops the write.
  return async (args, signal) => {
    await mgr.check(args.name, args.content, signal);
    return { patterns: [`write:note/${args.name}`] };
  };
}

/** Maps the arguments to the Manager. */
export function writeNote(mgr: Manager): ToolHandler<Input> {
  return async (req) => {
    const { name, content } = req.arguments;
    await mgr.write(name, content, req.signal);
    return text(`Wrote note "${name}" (${new TextEncoder().encode(content).length} bytes)`);
  };
}
