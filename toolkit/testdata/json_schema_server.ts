// A server whose tools have hand-written JSON Schema 2020-12: shared types in
// $defs reached through $ref (as zod, pydantic and OpenAPI generators write
// them), and the tool of the MCP conformance suite's json-schema-2020-12
// scenario ($schema, $defs with an $anchor, $ref, allOf/anyOf, if/then/else,
// additionalProperties: false), and a tool whose pattern backtracks in V8.
// Needs no Deno permission.
import { addTool, health, json, type ObjectSchema, run, text } from "../../mod.ts";
import { SCENARIO_SCHEMA_2020_12 } from "../../scripts/conformance/scenario_schema.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/** A range of slots, each end within 0…10, with tags of lowercase letters. */
const SCHEDULE: ObjectSchema = {
  type: "object",
  $defs: {
    slot: { type: "integer", minimum: 0, maximum: 10 },
    range: {
      type: "object",
      properties: { from: { $ref: "#/$defs/slot" }, to: { $ref: "#/$defs/slot" } },
      required: ["from"],
      additionalProperties: false,
    },
    tag: { type: "string", pattern: "^[a-z]+$", maxLength: 16 },
  },
  properties: {
    range: { $ref: "#/$defs/range" },
    tags: { type: "array", items: { $ref: "#/$defs/tag" }, uniqueItems: true },
  },
  required: ["range"],
  additionalProperties: false,
};

const SCHEDULED: ObjectSchema = {
  type: "object",
  $defs: { slot: { type: "integer", minimum: 0, maximum: 10 } },
  properties: { slots: { type: "array", items: { $ref: "#/$defs/slot" } } },
  required: ["slots"],
};

/** A pattern that backtracks exponentially in V8 on "aaa…a!", and no maxLength to bound it. */
const WORD: ObjectSchema = {
  type: "object",
  properties: { word: { type: "string", pattern: "^(a+)+$" } },
  required: ["word"],
};

if (!health()) {
  await run("json-schema", (server) => {
    addTool(server, {
      name: "schedule",
      description: "Lists the slots of a range",
      inputSchema: SCHEDULE,
      outputSchema: SCHEDULED,
      annotations: RO,
    }, (req) => {
      // A hand-written schema types its arguments as unknown: the schema checked them, the handler narrows.
      const range = req.arguments.range as { from: number; to?: number };
      const slots = [];
      for (let slot = range.from; slot <= (range.to ?? range.from); slot++) slots.push(slot);
      return json({ slots });
    });
    addTool(server, {
      name: "word",
      description: "Echoes a word of a's",
      inputSchema: WORD,
      annotations: RO,
    }, (req) => text(String(req.arguments.word)));
    addTool(server, {
      name: "json_schema_2020_12_tool",
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: SCENARIO_SCHEMA_2020_12,
      annotations: RO,
    }, (req) => text(`ok: ${req.arguments.name ?? "anonymous"}`));
  });
}
