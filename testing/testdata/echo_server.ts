// The server the subprocess clients' tests drive: it names on stderr the
// variable it was given and whether it sees one it was not, serves one
// tool, and with --exit-at-once writes a reason to stderr and exits 4 before
// serving anything.
import { addTool, run, schema, strProp, text } from "../../mod.ts";

if (Deno.args.includes("--exit-at-once")) {
  console.error("not serving today");
  Deno.exit(4);
}
const seen = (name: string): string =>
  Deno.permissions.querySync({ name: "env", variable: name }).state === "granted" ? Deno.env.get(name) ?? "-" : "?";
console.error(`fixture ready: GIVEN=${seen("GIVEN")} SECRET=${seen("FORGE_TEST_SECRET")}`);
await run("echo", (server) => {
  addTool(server, {
    name: "echo",
    description: "Echoes",
    inputSchema: schema({ say: strProp("What to say") }, ["say"]),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  }, (req) => text(req.arguments.say));
});
