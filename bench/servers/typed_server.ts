// The typed-arguments benchmark, validated side: `echo` takes four typed
// arguments, declared once with the schema helpers, and every call is checked
// against them before the handler runs. Its twin,
// typed_unvalidated_server.ts, does the same work with nothing declared.
// Needs no permission.
import { addTool, boolProp, enumProp, health, intProp, run, schema, strProp, text } from "@forge/toolkit";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("bench-typed", (server) => {
    addTool(server, {
      name: "echo",
      description: "Returns its text, trimmed, cased and repeated as asked",
      inputSchema: schema({
        text: strProp("The text to return", { maxLength: 4096 }),
        times: intProp("How many times", { minimum: 1, maximum: 10 }),
        mode: enumProp(["plain", "upper"], "The casing"),
        trim: boolProp("Whether to trim the text first"),
      }, ["text", "times", "mode", "trim"]),
      annotations: READ_ONLY,
    }, (req) => {
      const { text: value, times, mode, trim } = req.arguments;
      const trimmed = trim ? value.trim() : value;
      return text((mode === "upper" ? trimmed.toUpperCase() : trimmed).repeat(times));
    });
  });
}
