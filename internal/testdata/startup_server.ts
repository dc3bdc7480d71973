// A server that makes one start-up or handler mistake, picked by its first
// argument, for the tests of what the author is told. Needs no permission.
import { addTool, health, run, schema, strProp, text } from "@forge/toolkit";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const mistake = Deno.args[0] ?? "none";

// Module top level: before run() is even called.
console.log("top-level console.log");
Deno.stdout.writeSync(new TextEncoder().encode("top-level stdout writeSync\n"));
if (mistake === "import") schema({ path: strProp("Path") }, ["pth" as "path"]);

if (!health()) await serve();

async function serve(): Promise<void> {
  await run("startup", (server) => {
    console.log("console.log in register");
    addTool(server, { name: "hi", description: "Says hi", inputSchema: schema(), annotations: RO }, () => text("hi"));
    if (mistake === "duplicate") {
      addTool(server, { name: "hi", description: "Again", inputSchema: schema(), annotations: RO }, () => text("hi"));
    }
    if (mistake === "annotations") {
      const partial = { readOnlyHint: true, destructiveHint: false } as typeof RO;
      addTool(
        server,
        { name: "half", description: "Two hints", inputSchema: schema(), annotations: partial },
        () => text("half"),
      );
    }
    if (mistake === "register-throws") throw new Error("the database is not reachable");
    addTool(server, {
      name: "string_result",
      description: "Returns a bare string",
      inputSchema: schema(),
      annotations: RO,
    }, () => "a bare string" as never);
    addTool(server, {
      name: "plain_error",
      description: "Throws a plain Error",
      inputSchema: schema(),
      annotations: RO,
    }, () => {
      throw new Error("the file was not found");
    });
  });
}
