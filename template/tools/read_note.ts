import { type Infer, schema, strProp, text, type Tool, type ToolHandler } from "@forge/toolkit";
import type { Manager } from "../domain/notes.ts";

// Declared once, this is the JSON Schema clients see, the type of `req.arguments` (docs: the toolkit's
// docs/typed-tools.md) and the check every call passes before the handler runs.
const input = schema({ name: strProp("The note's name: lower-case letters, digits, '_' or '-'", { maxLength: 64 }) }, [
  "name",
]);

/** The arguments, checked against the schema before any code below runs. */
type Input = Infer<typeof input>;

/** The read-only tool: reads one note. */
export const readNoteTool: Tool<Input> = {
  name: "read_note",
  title: "Read a note",
  description: "Reads one note by name and returns its text. Read-only.",
  inputSchema: input,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  timeoutMs: 5_000,
};

/** Maps the arguments to the Manager. */
export function readNote(mgr: Manager): ToolHandler<Input> {
  return async (req) => text(await mgr.read(req.arguments.name, req.signal));
}
