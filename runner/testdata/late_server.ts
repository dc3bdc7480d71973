// A server run by run() whose only tool at the start, `add`, registers tools while serving: `add {"which":"late"}`
// adds `bounded` (a maxLength schema: the engine's) and `remote` (a remote $ref, which the engine refuses), then a
// second `bounded`, and answers with what each addTool did and whether the engine was loaded then;
// `add {"which":"plain"}` adds a plain tool named `remote`.
import { addTool, health, run, schema, strProp, text } from "../../mod.ts";
import type { ObjectSchema } from "../../toolkit/schema.ts";
import { schemaEngine } from "../../toolkit/schema_engine.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const bounded: ObjectSchema = { type: "object", properties: { s: { type: "string", maxLength: 2 } } };
const remote: ObjectSchema = { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } };

if (!health()) {
  await run("late", (server) => {
    const tryAdd = (name: string, inputSchema: ObjectSchema, reply: string): string => {
      try {
        addTool(server, { name, description: "A late tool", inputSchema, annotations: RO }, () => text(reply));
        return `${name}: added`;
      } catch (err) {
        return `${name}: ${(err as Error).message}`;
      }
    };
    addTool(server, {
      name: "add",
      description: "Adds tools while serving",
      inputSchema: schema({ which: strProp("late or plain") }, ["which"]),
      annotations: RO,
    }, (req) => {
      const engine = `engine loaded: ${schemaEngine() !== undefined}`;
      if (req.arguments.which === "plain") {
        return text([engine, tryAdd("remote", schema({}), "plain remote")].join("\n"));
      }
      return text([
        engine,
        tryAdd("bounded", bounded, "first bounded"),
        tryAdd("remote", remote, "remote"),
        tryAdd("bounded", schema({}), "second bounded"),
      ].join("\n"));
    });
  });
}
