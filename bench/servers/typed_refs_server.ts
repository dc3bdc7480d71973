// The typed-arguments benchmark, written the way schema generators (zod,
// pydantic, OpenAPI) write it: the argument types in $defs, reached through
// $ref. Same tool and work as typed_server.ts, so the two differ only in how
// the schema is written. Needs no permission.
import { addTool, health, type ObjectSchema, run, text } from "@forge/toolkit";

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const ECHO: ObjectSchema = {
  type: "object",
  $defs: {
    text: { type: "string", maxLength: 4096, description: "The text to return" },
    times: { type: "integer", minimum: 1, maximum: 10, description: "How many times" },
    mode: { type: "string", enum: ["plain", "upper"], description: "The casing" },
    flag: { type: "boolean" },
  },
  properties: {
    text: { $ref: "#/$defs/text" },
    times: { $ref: "#/$defs/times" },
    mode: { $ref: "#/$defs/mode" },
    trim: { $ref: "#/$defs/flag", description: "Whether to trim the text first" },
  },
  required: ["text", "times", "mode", "trim"],
  additionalProperties: false,
};

if (!health()) {
  await run("bench-typed-refs", (server) => {
    addTool(server, {
      name: "echo",
      description: "Returns its text, trimmed, cased and repeated as asked",
      inputSchema: ECHO,
      annotations: READ_ONLY,
    }, (req) => {
      // A hand-written schema types the arguments unknown; the schema has checked them.
      const { text: value, times, mode, trim } = req.arguments as {
        text: string;
        times: number;
        mode: string;
        trim: boolean;
      };
      const trimmed = trim ? value.trim() : value;
      return text((mode === "upper" ? trimmed.toUpperCase() : trimmed).repeat(times));
    });
  });
}
