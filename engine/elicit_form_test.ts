// test-permissions: --allow-run --allow-env --allow-read={repo}
// A handler's form is checked before the user is asked, over a real server
// subprocess in both eras: a form MCP's elicitation does not allow (nested,
// an array that is no multi-select, `$ref`…) or one the JSON Schema engine
// refuses (a pattern that is no regular expression, another dialect) fails
// the call with -32603, the reason on stderr, and reaches the client neither
// as an `elicitation/create` request nor in an `input_required` result; a
// good form is asked as before. What a form may hold is what the revision
// the client speaks defines: a 2025-06-18 client is never sent a kind of
// field only 2025-11-25 has.
import assert from "node:assert/strict";
import { handshake, type RawServer, spawnRaw } from "@forge/toolkit/testing";
import { boolProp, enumProp, intProp, schema, strProp } from "../mod.ts";

const script = new URL("./testdata/named_ask_server.ts", import.meta.url).pathname;
type Json = Record<string, unknown>;

/** Bad forms, each with what stderr says of it. */
const BAD: [Json, RegExp][] = [
  [
    { type: "object", properties: { address: { type: "object", properties: { street: { type: "string" } } } } },
    /Cannot elicit: property "address" is an object \(a form is flat\)/,
  ],
  [
    { type: "object", properties: { tags: { type: "array", items: { type: "string" } } } },
    /Cannot elicit: property "tags" is an array whose items are not an enum/,
  ],
  [
    { type: "object", properties: { name: { type: "string", $ref: "#/$defs/name" } } },
    /Cannot elicit: property "name" has "\$ref", which a form's string property may not use/,
  ],
  [
    { type: "object", properties: {}, $defs: { name: { type: "string" } } },
    /Cannot elicit: requestedSchema has "\$defs", which a form may not use/,
  ],
  [
    { type: "object", properties: { name: { type: "string" } }, required: ["email"] },
    /Cannot elicit: requestedSchema requires "email", which is not one of its properties/,
  ],
  // Within MCP's subset, refused by the engine: compiled before the question is asked, not when it is answered.
  [
    { type: "object", properties: { code: { type: "string", pattern: "(" } } },
    /Cannot elicit: requestedSchema\/properties\/code\/pattern is not a valid regular expression/,
  ],
  [
    { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: {} },
    /Cannot elicit: requestedSchema\/\$schema is "http:\/\/json-schema.org\/draft-07\/schema#": only JSON Schema 2020-12/,
  ],
];

/** A form of every kind MCP allows, built with the helpers where they can. */
const GOOD: Json = schema({
  name: strProp("Your name", { minLength: 1, maxLength: 40, pattern: "^\\S" }),
  email: strProp("Your email", { format: "email" }),
  age: intProp("Your age", { minimum: 0, maximum: 150 }),
  ratio: { type: "number", minimum: 0, maximum: 1, default: 0.5 },
  subscribe: boolProp("Subscribe?", { default: false }),
  color: enumProp(["red", "green"], "Colour"),
  size: { type: "string", enum: ["s", "m"], enumNames: ["Small", "Medium"] },
  shade: { type: "string", oneOf: [{ const: "#fff", title: "White" }], default: "#fff" },
  toppings: { type: "array", items: { type: "string", enum: ["ham", "egg"] }, minItems: 1, default: ["egg"] },
  extras: { type: "array", items: { anyOf: [{ const: "x", title: "Extra" }] }, maxItems: 1 },
}, ["name"]) as Json;
const GOOD_ANSWER = { action: "accept", content: { name: "Ada", color: "red", toppings: ["ham"] } };

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
};
let nextId = 0;

/** Sends a 2026-07-28 tools/call of `form` and returns its reply. */
async function callForm(server: RawServer, requestedSchema: Json, retry: Json = {}): Promise<Json> {
  const id = ++nextId;
  const params = { name: "form", arguments: { requestedSchema }, ...retry, _meta: META };
  await server.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }));
  const reply = await server.next();
  assert.equal(reply.id, id, JSON.stringify(reply));
  return reply;
}

Deno.test("2026-07-28: a form MCP does not allow, or that the schema engine refuses, fails the call (-32603) with no input_required; a good one is asked", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  for (const [i, [form, said]] of BAD.entries()) {
    const reply = await callForm(server, form);
    assert.equal(reply.result, undefined, `asked ${JSON.stringify(form)}: ${JSON.stringify(reply.result)}`);
    assert.equal((reply.error as { code: number }).code, -32603, JSON.stringify(form));
    // The reason goes to stderr, which is not ordered with the reply on stdout: wait for its line.
    await server.waitForStderr("tool form failed", i + 1);
    assert.match(server.stderr(), said);
  }
  const asked = (await callForm(server, GOOD)).result as Json;
  assert.equal(asked.resultType, "input_required");
  const request = (asked.inputRequests as Record<string, { method: string; params: Json }>)["elicitation-1"];
  assert.equal(request.method, "elicitation/create");
  assert.deepEqual(request.params.requestedSchema, GOOD);
  const done = (await callForm(server, GOOD, {
    inputResponses: { "elicitation-1": GOOD_ANSWER },
    requestState: asked.requestState,
  })).result as { content: { text: string }[] };
  assert.deepEqual(JSON.parse(done.content[0].text), GOOD_ANSWER.content);
  await server.closeInput();
  assert.equal((await server.status()).code, 0);
});

Deno.test("2026-07-28: the form asked, and its answer checked against, is the form's JSON as elicit() read it: not as the handler changed it later, nor as a getter or an inherited key reads otherwise", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  const asked = { type: "object", properties: { name: { type: "string" } } };
  for (const how of ["mutated", "getter", "inherited"]) {
    const call = async (retry: Json = {}): Promise<Json> => {
      const id = ++nextId;
      const params = { name: "form_changes", arguments: { how }, ...retry, _meta: META };
      await server.send(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params }));
      const reply = await server.next();
      assert.equal(reply.id, id, JSON.stringify(reply));
      return reply.result as Json;
    };
    const paused = await call();
    const request = (paused.inputRequests as Record<string, { params: Json }>)?.["elicitation-1"];
    assert.deepEqual(request?.params.requestedSchema, asked, `${how}: ${JSON.stringify(paused)}`);
    // An answer to the form sent passes the check: a string name, and no field the sent form does not make required.
    const done = await call({
      inputResponses: { "elicitation-1": { action: "accept", content: { name: "Ada", note: "x" } } },
      requestState: paused.requestState,
    });
    assert.deepEqual(
      done.content,
      [{ type: "text", text: '{"name":"Ada","note":"x"}' }],
      `${how}: ${JSON.stringify(done)}`,
    );
  }
  await server.closeInput();
  assert.equal((await server.status()).code, 0);
});

Deno.test("initialize era: a form MCP does not allow, or that the schema engine refuses, fails the call (-32603) and no elicitation/create is sent; a good one is", async () => {
  const server = await spawnRaw({ args: ["--no-prompt", script] });
  await handshake(server, { protocolVersion: "2025-11-25", capabilities: { elicitation: {} } });
  const call = (id: number, requestedSchema: Json) =>
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "form", arguments: { requestedSchema } },
    }));
  for (const [i, [form, said]] of BAD.entries()) {
    await call(i, form);
    // The call's own reply comes next: no request to the client before it.
    const reply = await server.next();
    assert.equal(reply.method, undefined, `asked ${JSON.stringify(form)}: ${JSON.stringify(reply)}`);
    assert.equal(reply.id, i);
    assert.equal((reply.error as { code: number }).code, -32603, JSON.stringify(form));
    // The reason goes to stderr, which is not ordered with the reply on stdout: wait for its line.
    await server.waitForStderr("tool form failed", i + 1);
    assert.match(server.stderr(), said);
  }
  await call(100, GOOD);
  const request = await server.next();
  assert.equal(request.method, "elicitation/create");
  assert.deepEqual((request.params as Json).requestedSchema, GOOD);
  await server.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: GOOD_ANSWER }));
  const reply = await server.next();
  assert.equal(reply.id, 100);
  assert.deepEqual(JSON.parse((reply.result as { content: { text: string }[] }).content[0].text), GOOD_ANSWER.content);
  await server.closeInput();
  assert.equal((await server.status()).code, 0);
});

Deno.test("initialize era: a form with a kind 2025-06-18 lacks (a multi-select) fails the call of a 2025-06-18 client (-32603) before it is asked, and is asked of a 2025-11-25 client", async () => {
  const form: Json = schema({
    name: strProp("Your name"),
    toppings: { type: "array", items: { type: "string", enum: ["ham", "egg"] } },
  }) as Json;
  const answer = { action: "accept", content: { name: "Ada", toppings: ["egg"] } };
  const call = (server: RawServer, id: number, requestedSchema: Json) =>
    server.send(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "form", arguments: { requestedSchema } },
    }));
  const [older, newer] = await Promise.all(["2025-06-18", "2025-11-25"].map(async (protocolVersion) => {
    const server = await spawnRaw({ args: ["--no-prompt", script] });
    const init = await handshake(server, { protocolVersion, capabilities: { elicitation: {} } });
    assert.equal((init.result as Json).protocolVersion, protocolVersion);
    return server;
  }));

  await call(older, 1, form);
  const refused = await older.next();
  assert.equal(refused.method, undefined, `asked: ${JSON.stringify(refused)}`);
  assert.equal(refused.id, 1);
  assert.equal((refused.error as { code: number }).code, -32603);
  await older.waitForStderr("tool form failed", 1);
  assert.match(
    older.stderr(),
    /Cannot elicit: property "toppings" is a multi-select enum \(an array\), which MCP 2025-06-18 forms do not have; the client speaks 2025-06-18/,
  );
  // The same client is asked a form of the kinds its revision has.
  const plain: Json = schema({ name: strProp("Your name") }) as Json;
  await call(older, 2, plain);
  const asked = await older.next();
  assert.equal(asked.method, "elicitation/create", JSON.stringify(asked));
  assert.deepEqual((asked.params as Json).requestedSchema, plain);
  // 2025-06-18's elicitation/create has no `mode` (2025-11-25 added it with its URL mode).
  assert.equal("mode" in (asked.params as Json), false, JSON.stringify(asked.params));
  await older.send(JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { action: "decline" } }));
  assert.deepEqual((await older.next()).result, { content: [{ type: "text", text: "decline" }] });

  await call(newer, 1, form);
  const request = await newer.next();
  assert.equal(request.method, "elicitation/create", JSON.stringify(request));
  assert.deepEqual((request.params as Json).requestedSchema, form);
  assert.equal((request.params as Json).mode, "form");
  await newer.send(JSON.stringify({ jsonrpc: "2.0", id: request.id, result: answer }));
  const reply = await newer.next();
  assert.equal(reply.id, 1);
  assert.deepEqual(JSON.parse((reply.result as { content: { text: string }[] }).content[0].text), answer.content);

  for (const server of [older, newer]) {
    await server.closeInput();
    assert.equal((await server.status()).code, 0);
  }
});
