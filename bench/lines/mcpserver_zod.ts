// word_count and todo_add with the official SDK's McpServer and zod. The
// SDK has no pattern tool: the probe (`_meta["forge.permission_patterns"]`)
// is answered by hand, as a server that wants host approval must. The
// handlers' parameters are annotated because, with the pinned SDK (1.32.2)
// and zod (4.6.7) under Deno, registerTool does not infer them from the
// shape (they would be `any`).
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { PathJail } from "@forge/toolkit/validate";
import { z } from "zod";
import { addTodo } from "./todos.ts";

export function registerTools(server: McpServer, jail: PathJail): void {
  server.registerTool("word_count", {
    description: "Counts the words of a text file inside a root",
    inputSchema: { path: z.string().describe("The file, relative to the first root") },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, async ({ path }: { path: string }) => {
    const words = (await jail.readTextFile(path)).split(/\s+/).filter(Boolean);
    return { content: [{ type: "text", text: `${words.length} words` }] };
  });
  server.registerTool("todo_add", {
    description: "Adds an item to a todo list",
    inputSchema: {
      list: z.string().regex(/^[a-z0-9-]{1,32}$/).describe("The list's name"),
      item: z.string().max(200).describe("What to do"),
      priority: z.enum(["low", "normal", "high"]).optional().describe("How urgent"),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, async (
    { list, item, priority = "normal" }: { list: string; item: string; priority?: string },
    extra: { _meta?: Record<string, unknown> },
  ) => {
    const patterns = [`write:todo/${list}`];
    if (extra._meta?.["forge.permission_patterns"] === true) {
      const summary = `Probe only, not run: permission patterns: ${patterns.join(", ")}`;
      return { content: [{ type: "text", text: summary }], _meta: { "forge.permission_patterns": patterns } };
    }
    return { content: [{ type: "text", text: `${await addTodo(jail, list, item, priority)} items in ${list}` }] };
  });
}
