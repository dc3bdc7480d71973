// A server whose tools name their questions, for named_questions_test.ts; it
// needs no Deno permission. `named` asks two named questions together,
// `keyed` asks under the keys its arguments give (to test the key rules), and
// `named_task` asks a named question as a task; `form` asks the form its
// arguments give, to test which forms may be asked, and `form_changes` a form
// that reads otherwise later (elicit_form_test.ts).
import { addTool, enumProp, health, type ObjectSchema, run, schema, strProp, text } from "../../mod.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const NAME = schema({ name: strProp("Your name") }, ["name"]);

if (!health()) {
  await run("named", (server) => {
    addTool(server, {
      name: "named",
      description: "Asks the user's name and the client's roots, under keys of its own",
      inputSchema: schema(),
      annotations: RO,
    }, async (req) => {
      const [answer, roots] = await Promise.all([
        req.elicit({ message: "What is your name?", requestedSchema: NAME }, { key: "user_name" }),
        req.listRoots({ key: "client_roots" }),
      ]);
      const name = answer.action === "accept" ? answer.content.name : answer.action;
      return text(`Hello, ${name}! roots=${roots.map((r) => r.uri).join(",")}`);
    });
    addTool(server, {
      name: "keyed",
      description: "Asks one question per key given, in order",
      inputSchema: schema({ keys: { type: "array", items: { type: "string" } } }, ["keys"]),
      annotations: RO,
    }, async (req) => {
      for (const key of req.arguments.keys as string[]) {
        await req.elicit({ message: `Question ${key}`, requestedSchema: NAME }, { key });
      }
      return text("asked");
    });
    addTool(server, {
      name: "form",
      description: "Asks the user to fill in the form its arguments give",
      inputSchema: schema({ requestedSchema: { type: "object" } }, ["requestedSchema"]),
      annotations: RO,
    }, async (req) => {
      const requestedSchema = req.arguments.requestedSchema as ObjectSchema;
      const answer = await req.elicit({ message: "Fill in the form", requestedSchema });
      return text(answer.action === "accept" ? JSON.stringify(answer.content) : answer.action);
    });
    addTool(server, {
      name: "form_changes",
      description: "Asks a one-string form that reads otherwise once elicit() has it, as its argument says",
      inputSchema: schema({ how: enumProp(["mutated", "getter", "inherited"], "How the form changes") }, ["how"]),
      annotations: RO,
    }, async (req) => {
      const name = () => ({ type: "string" });
      const nested = () => ({ type: "object", properties: { street: { type: "string" } } });
      let form: Record<string, unknown> = { type: "object", properties: { name: name() } };
      if (req.arguments.how === "getter") {
        // Its first read is a good form; every later read, a nested one.
        let reads = 0;
        form = {
          type: "object",
          get properties() {
            return { name: reads++ === 0 ? name() : nested() };
          },
        };
      } else if (req.arguments.how === "inherited") {
        // JSON.stringify does not send an inherited key, so no check may enforce it.
        form = Object.assign(Object.create({ required: ["name"], additionalProperties: false }), form);
      }
      const asked = req.elicit({ message: "Fill in the form", requestedSchema: form as ObjectSchema });
      // Changed once elicit() has it, before the question is sent or its round sealed.
      if (req.arguments.how === "mutated") (form.properties as Record<string, unknown>).name = nested();
      const answer = await asked;
      return text(answer.action === "accept" ? JSON.stringify(answer.content) : answer.action);
    });
    addTool(server, {
      name: "named_task",
      description: "As a task, asks the user's name under its own key",
      inputSchema: schema(),
      annotations: RO,
      task: true,
    }, async (req) => {
      const answer = await req.elicit({ message: "What is your name?", requestedSchema: NAME }, { key: "user_name" });
      return text(`Hello, ${answer.action === "accept" ? answer.content.name : answer.action}!`);
    });
  });
}
