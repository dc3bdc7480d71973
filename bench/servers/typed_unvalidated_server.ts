// The typed-arguments benchmark, unvalidated side: the same `echo` as
// typed_server.ts, with a schema that declares nothing (so the toolkit checks
// only that the arguments are an object) and the handler reading its four
// arguments with the argument helpers, as an untyped tool does.
// Needs no permission.
import { addTool, getBool, getInt, getString, health, requireString, run, schema, text } from "@forge/toolkit";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

if (!health()) {
  await run("bench-typed-unvalidated", (server) => {
    addTool(server, {
      name: "echo",
      description: "Returns its text, trimmed, cased and repeated as asked",
      inputSchema: schema({}, [], { additionalProperties: true }),
      annotations: READ_ONLY,
    }, (req) => {
      const value = requireString(req.arguments, "text");
      const times = getInt(req.arguments, "times", 1);
      const mode = getString(req.arguments, "mode", "plain");
      const trimmed = getBool(req.arguments, "trim") ? value.trim() : value;
      return text((mode === "upper" ? trimmed.toUpperCase() : trimmed).repeat(times));
    });
  });
}
