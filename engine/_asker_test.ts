import assert from "node:assert/strict";
import type { Era } from "./_era.ts";
import { type Asker, declares, NO_ASKER, protocolErrorOf, questionsOf } from "./_asker.ts";
import { MissingCapabilityError } from "../toolkit/missing_capability_error.ts";
import { objectProp, schema, strProp } from "../toolkit/schema.ts";
import { loadSchemaEngine, schemaEngine } from "../toolkit/schema_engine.ts";

const answering = (answer: unknown, era: Era = "session"): Asker => ({ era, ask: () => Promise.resolve(answer) });

Deno.test("declares(): form elicitation is {} or {form}; roots and sampling need their object", () => {
  assert.equal(declares({ elicitation: {} }, "elicitation/create"), true);
  assert.equal(declares({ elicitation: { form: {} } }, "elicitation/create"), true);
  assert.equal(declares({ elicitation: { url: {} } }, "elicitation/create"), false, "url mode only");
  assert.equal(declares({ elicitation: true }, "elicitation/create"), false);
  assert.equal(declares({ roots: {} }, "roots/list"), true);
  assert.equal(declares({ roots: [] }, "roots/list"), false);
  assert.equal(declares(undefined, "sampling/createMessage"), false);
});

Deno.test("elicit() checks the answer against the form: a bad one is an error the handler sees, -32602 in 2026-07-28", async () => {
  const form = { message: "Name?", requestedSchema: schema({ name: strProp("Name") }, ["name"]) };
  assert.deepEqual(await questionsOf(answering({ action: "accept", content: { name: "Ada" } })).elicit(form), {
    action: "accept",
    content: { name: "Ada" },
  });
  assert.deepEqual(await questionsOf(answering({ action: "decline", content: { x: 1 } })).elicit(form), {
    action: "decline",
  });
  for (const bad of [null, { action: "maybe" }, { action: "accept", content: { name: 3 } }, { action: "accept" }]) {
    await assert.rejects(questionsOf(answering(bad)).elicit(form), /Cannot use the client's answer to elicitation/);
    const err = await questionsOf(answering(bad, "stateless")).elicit(form).catch((e) => e);
    assert.equal(protocolErrorOf(err)?.code, -32602);
  }
  await assert.rejects(questionsOf(NO_ASKER).elicit(form), MissingCapabilityError);
});

Deno.test("elicit() words a refused answer as the form's fields, never as the tool's arguments", async () => {
  const form = { message: "Name?", requestedSchema: schema({ name: strProp("Name") }, ["name"]) };
  const extra = await questionsOf(answering({ action: "accept", content: { name: "Ada", age: 3 } })).elicit(form)
    .catch((e) => e);
  assert.equal(
    extra.message,
    "Cannot use the client's answer to elicitation/create: " +
      'Invalid field "age": is not a field of the requested form (additionalProperties); the form\'s fields are "name"',
  );
  const wrong = await questionsOf(answering({ action: "accept", content: { name: 3 } })).elicit(form).catch((e) => e);
  assert.match(wrong.message, /: Invalid field "name": must be a string \(type\), got the number 3$/);
  const missing = await questionsOf(answering({ action: "accept", content: {} })).elicit(form).catch((e) => e);
  assert.match(missing.message, /: Invalid field "name": is missing \(required\)$/);
});

Deno.test("listRoots() and sample() refuse answers without the fields their result needs", async () => {
  assert.deepEqual(await questionsOf(answering({ roots: [{ uri: "file:///a", name: "A", extra: 1 }] })).listRoots(), [
    { uri: "file:///a", name: "A" },
  ]);
  await assert.rejects(questionsOf(answering({ roots: [{ name: "no uri" }] })).listRoots(), /"uri"/);
  await assert.rejects(questionsOf(answering({ role: "assistant" })).sample({ messages: [], maxTokens: 1 }), /"model"/);
});

Deno.test("elicit() gives its question its place at once and hands the asker the form's compile as `ready` until the engine is loaded, then compiles at once; a form outside MCP's subset is never handed over", async () => {
  const asked: { method: string; ready?: Promise<unknown> }[] = [];
  const recording: Asker = {
    era: "stateless",
    ask: (method, _params, _key, ready) => {
      asked.push({ method, ready });
      return Promise.resolve(method === "roots/list" ? { roots: [] } : { action: "decline" });
    },
  };
  const questions = questionsOf(recording);
  const form = { message: "Name?", requestedSchema: schema({ name: strProp("Name") }) };
  const badPattern = schema({ code: strProp("Code", { pattern: "(" }) });
  // Not loaded yet (unless a test before this one in the process loaded it): the compile is the asker's `ready`.
  if (schemaEngine() === undefined) {
    // Asked together: each question has its place as the handler asked it, though no compile is done yet; the engine
    // refuses the last form (no regular expression), so the asker gets a `ready` that rejects with why.
    const [named, , coded] = await Promise.allSettled([
      questions.elicit(form),
      questions.listRoots(),
      questions.elicit({ message: "Code?", requestedSchema: badPattern }),
    ]);
    assert.deepEqual(asked.map((a) => a.method), ["elicitation/create", "roots/list", "elicitation/create"]);
    assert.notEqual(asked[0].ready, undefined);
    assert.equal(named.status, "fulfilled");
    assert.match(String((coded as PromiseRejectedResult).reason), /Cannot elicit: .*pattern/);
    await assert.rejects(asked[2].ready!, /Cannot elicit: requestedSchema\/properties\/code\/pattern/);
  }
  // Loaded: the form is compiled at once, asked with no `ready` (as a handler that does not await it expects), and one
  // the engine refuses never reaches the asker.
  await loadSchemaEngine();
  asked.length = 0;
  await Promise.all([questions.elicit(form), questions.listRoots()]);
  assert.deepEqual(asked.map((a) => [a.method, a.ready]), [["elicitation/create", undefined], [
    "roots/list",
    undefined,
  ]]);
  asked.length = 0;
  await assert.rejects(questions.elicit({ message: "Code?", requestedSchema: badPattern }), /Cannot elicit: .*pattern/);
  assert.deepEqual(asked, []);
  // Outside MCP's subset: refused before the asker hears of it.
  asked.length = 0;
  const nested = schema({ a: objectProp({}, [], "A") });
  await assert.rejects(questions.elicit({ message: "A?", requestedSchema: nested }), /Cannot elicit: property "a"/);
  assert.deepEqual(asked, []);
});
