// A server with a policy: it may read the directories given as --root=<dir> (one or more), and write the files
// given as --write-file=<path>.
import { addTool, health, run, schema, text } from "../../mod.ts";
import { definePolicy } from "../../validate/mod.ts";

const roots = Deno.args.filter((a) => a.startsWith("--root=")).map((a) => a.slice("--root=".length));
const files = Deno.args.filter((a) => a.startsWith("--write-file=")).map((a) => a.slice("--write-file=".length));
const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("policy", (server) => {
    addTool(server, { name: "hi", description: "Says hi", inputSchema: schema(), annotations: RO }, () => text("hi"));
  }, { policy: definePolicy({ readRoots: roots, writeFiles: files }) });
}
