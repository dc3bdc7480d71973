// A server with a policy: it may read the directories given as --root=<dir> (one or more).
import { addTool, health, run, schema, text } from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const roots = Deno.args.filter((a) => a.startsWith("--root=")).map((a) => a.slice("--root=".length));
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("policy", (server) => {
    addTool(server, { name: "hi", description: "Says hi", inputSchema: schema(), annotations: RO }, () => text("hi"));
  }, { policy: definePolicy({ readRoots: roots }) });
}
