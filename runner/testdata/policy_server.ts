// A server with a policy: it may read the directory given as --root=<dir>.
import { addTool, health, run, schema, text } from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const root = Deno.args.find((a) => a.startsWith("--root="))?.slice("--root=".length) ?? "/nonexistent";
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("policy", (server) => {
    addTool(server, { name: "hi", description: "Says hi", inputSchema: schema(), annotations: RO }, () => text("hi"));
  }, { policy: definePolicy({ readRoots: [root] }) });
}
