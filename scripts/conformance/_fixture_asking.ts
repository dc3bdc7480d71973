// The fixture's tools that ask the client: server-to-client requests in the
// initialize era, input-required rounds in 2026-07-28 — the same handler code.

import { addTool, type ObjectSchema, type Server, strProp, text, type ToolRequest } from "@forge/toolkit";
import { NO_ARGS, READS } from "./_fixture_content.ts";

const NAME_FORM = { type: "object", properties: { name: { type: "string" } }, required: ["name"] } as ObjectSchema<
  { name: string }
>;

function form<T>(properties: Record<string, unknown>, required: string[] = []): ObjectSchema<T> {
  return { type: "object", properties, required } as unknown as ObjectSchema<T>;
}

/** Registers the asking tools. */
export function addAskingTools(server: Server): void {
  const asking = (name: string, description: string, handler: (req: ToolRequest) => Promise<string>) =>
    addTool(
      server,
      { name, description, inputSchema: NO_ARGS, annotations: READS },
      async (req) => text(await handler(req)),
    );

  addTool(server, {
    name: "test_sampling",
    description: "Asks the client's model to answer a prompt",
    inputSchema: { type: "object", properties: { prompt: strProp("The prompt") }, required: ["prompt"] },
    annotations: READS,
  }, async (req) => {
    const answer = await req.sample({
      messages: [{ role: "user", content: { type: "text", text: String(req.arguments.prompt) } }],
      maxTokens: 100,
    });
    return text(`LLM response: ${(answer.content as { text?: string }).text ?? ""}`);
  });

  addTool(server, {
    name: "test_elicitation",
    description: "Asks the user for a username and an email",
    inputSchema: { type: "object", properties: { message: strProp("What to ask") }, required: ["message"] },
    annotations: READS,
  }, async (req) => {
    const answer = await req.elicit({
      message: String(req.arguments.message),
      requestedSchema: form({
        username: { type: "string", description: "User's response" },
        email: { type: "string", description: "User's email address" },
      }, ["username", "email"]),
    });
    return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
  });

  asking("test_elicitation_sep1034_defaults", "Asks with a default for every primitive type", async (req) => {
    const answer = await req.elicit({
      message: "Test client default value handling - please accept with defaults",
      requestedSchema: form({
        name: { type: "string", description: "User name", default: "John Doe" },
        age: { type: "integer", description: "User age", default: 30 },
        score: { type: "number", description: "User score", default: 95.5 },
        status: {
          type: "string",
          description: "User status",
          enum: ["active", "inactive", "pending"],
          default: "active",
        },
        verified: { type: "boolean", description: "Verification status", default: true },
      }),
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  });

  asking("test_elicitation_sep1330_enums", "Asks with every enum form", async (req) => {
    const answer = await req.elicit({
      message: "Test enum schema variants",
      requestedSchema: form({
        untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
        titledSingle: {
          type: "string",
          oneOf: [
            { const: "value1", title: "First Option" },
            { const: "value2", title: "Second Option" },
            { const: "value3", title: "Third Option" },
          ],
        },
        legacyEnum: {
          type: "string",
          enum: ["opt1", "opt2", "opt3"],
          enumNames: ["Option One", "Option Two", "Option Three"],
        },
        untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
        titledMulti: {
          type: "array",
          items: {
            anyOf: [
              { const: "value1", title: "First Choice" },
              { const: "value2", title: "Second Choice" },
              { const: "value3", title: "Third Choice" },
            ],
          },
        },
      }),
    });
    return `Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`;
  });

  // 2026-07-28 input-required scenarios: one question per tool, or several asked together.
  asking("test_input_required_result_elicitation", "Asks the user's name", async (req) => {
    const answer = await req.elicit({ message: "What is your name?", requestedSchema: NAME_FORM }, {
      key: "user_name",
    });
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name given (${answer.action})`;
  });
  asking("test_streaming_elicitation", "Asks the user's name", async (req) => {
    const answer = await req.elicit({ message: "What is your name?", requestedSchema: NAME_FORM });
    return `Hello, ${answer.action === "accept" ? answer.content.name : "nobody"}!`;
  });
  asking("test_input_required_result_sampling", "Asks the client's model a question", async (req) => {
    const answer = await req.sample({
      messages: [{ role: "user", content: { type: "text", text: "What is the capital of France?" } }],
      maxTokens: 100,
    }, { key: "capital_question" });
    return `Sampling response: ${(answer.content as { text?: string }).text ?? ""}`;
  });
  asking("test_input_required_result_list_roots", "Lists the client's roots", async (req) => {
    const roots = await req.listRoots({ key: "client_roots" });
    return `Roots: ${roots.map((r) => r.uri).join(", ")}`;
  });
  asking("test_input_required_result_request_state", "Asks for a confirmation", async (req) => {
    const answer = await req.elicit({
      message: "Please confirm",
      requestedSchema: form<{ ok: boolean }>({ ok: { type: "boolean" } }, ["ok"]),
    }, { key: "confirm" });
    // The toolkit opened the sealed requestState before the handler ran again: reaching here proves it.
    return `state-ok: ${answer.action}`;
  });
  asking("test_input_required_result_multiple_inputs", "Asks three things at once", async (req) => {
    const [name, greeting, roots] = await Promise.all([
      req.elicit({ message: "What is your name?", requestedSchema: NAME_FORM }, { key: "user_name" }),
      req.sample({
        messages: [{ role: "user", content: { type: "text", text: "Generate a greeting" } }],
        maxTokens: 50,
      }, { key: "greeting" }),
      req.listRoots({ key: "client_roots" }),
    ]);
    return `name=${JSON.stringify(name.content ?? null)}, greeting=${
      JSON.stringify((greeting.content as { text?: string }).text ?? "")
    }, roots=${roots.length}`;
  });
  asking("test_input_required_result_multi_round", "Asks twice, one question a round", async (req) => {
    const first = await req.elicit({ message: "Step 1: What is your name?", requestedSchema: NAME_FORM }, {
      key: "step1",
    });
    const second = await req.elicit({
      message: "Step 2: What is your favorite color?",
      requestedSchema: form<{ color: string }>({ color: { type: "string" } }, ["color"]),
    }, { key: "step2" });
    return `name=${first.content?.name}, color=${second.content?.color}`;
  });
  asking("test_input_required_result_tampered_state", "Asks for a confirmation", async (req) => {
    const answer = await req.elicit({
      message: "Please confirm",
      requestedSchema: form<{ ok: boolean }>({ ok: { type: "boolean" } }, ["ok"]),
    });
    return `confirmed: ${answer.action}`;
  });
  asking("test_input_required_result_capabilities", "Asks only what the client can answer", async (req) => {
    // Both questions are asked together; one the client cannot answer fails at once and is left out.
    const [elicited, sampled] = await Promise.allSettled([
      req.elicit({ message: "What is your name?", requestedSchema: NAME_FORM }),
      req.sample({ messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 20 }),
    ]);
    return `elicitation=${elicited.status}, sampling=${sampled.status}`;
  });
  asking("test_missing_capability", "Needs sampling, which the client may not declare", async (req) => {
    const answer = await req.sample({
      messages: [{ role: "user", content: { type: "text", text: "Say hi" } }],
      maxTokens: 20,
    });
    return `Sampled: ${(answer.content as { text?: string }).text ?? ""}`;
  });
}
