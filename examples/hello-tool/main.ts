// The smallest complete server: one read-only tool.
import { addTool, health, run, schema, strProp, text } from "@forge/toolkit";

if (!health()) {
  await run("hello", (server) => {
    addTool(server, {
      name: "hello",
      title: "Say hello",
      description: "Greets someone by name.",
      inputSchema: schema({ name: strProp("Who to greet") }, ["name"]),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    }, (req) => text(`Hello, ${req.arguments.name}!`));
  }, { version: "0.1.0" });
}
