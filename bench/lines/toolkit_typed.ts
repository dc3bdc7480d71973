// word_count and todo_add with the toolkit's typed API: every argument is
// declared once, typed in the handler, and validated before it runs.
import { addTool, enumProp, registerPatternTool, schema, type Server, strProp, text } from "@forge/toolkit";
import type { PathJail } from "@forge/toolkit/validate";
import { addTodo } from "./todos.ts";

export function registerTools(server: Server, jail: PathJail): void {
  addTool(server, {
    name: "word_count",
    description: "Counts the words of a text file inside a root",
    inputSchema: schema({ path: strProp("The file, relative to the first root") }, ["path"]),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, async (req) => {
    const words = (await jail.readTextFile(req.arguments.path)).split(/\s+/).filter(Boolean);
    return text(`${words.length} words`);
  });
  registerPatternTool(
    server,
    {
      name: "todo_add",
      description: "Adds an item to a todo list",
      inputSchema: schema({
        list: strProp("The list's name", { pattern: "^[a-z0-9-]{1,32}$" }),
        item: strProp("What to do", { maxLength: 200 }),
        priority: enumProp(["low", "normal", "high"], "How urgent"),
      }, ["list", "item"]),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    (args) => ({ patterns: [`write:todo/${args.list}`] }),
    async ({ arguments: { list, item, priority } }) => {
      return text(`${await addTodo(jail, list, item, priority ?? "normal")} items in ${list}`);
    },
  );
}
