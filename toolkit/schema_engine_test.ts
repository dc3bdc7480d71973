// test-permissions: --allow-run --allow-read={repo}
// test-alone: its tests need an isolate where nothing has loaded the schema engine yet
// Nothing in this file loads the serving half before the tests below do: the
// engine is absent until the last test loads it.
import assert from "node:assert/strict";
import { addTool, Server, text } from "../mod.ts";
import { importGraph } from "../internal/testdata/import_graph.ts";
import { registryOf, settleSchemas } from "./registry.ts";
import { schemaEngine } from "./schema_engine.ts";
import type { ObjectSchema } from "./schema.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const remote: ObjectSchema = { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } };

// The small modules that check and word a plain object schema: all of ../jsonschema/ the authoring half loads.
const PLAIN = [
  "/jsonschema/plain_object.ts",
  "/jsonschema/_object_acceptor.ts",
  "/jsonschema/_json_types.ts",
  "/jsonschema/_failure_text.ts",
];
const engineModules = (specifiers: Iterable<string>) =>
  [...specifiers].filter((s) => s.includes("/jsonschema/") && !PLAIN.some((p) => s.endsWith(p)));

Deno.test({
  name: "importing @forge/toolkit (as --health does), or the serving half run() loads, loads no module of the engine",
  permissions: { run: true, read: [new URL("..", import.meta.url).pathname] },
  async fn() {
    const { modules, loaded } = await importGraph(new URL("../mod.ts", import.meta.url).pathname);
    assert.ok([...loaded].some((s) => s.endsWith("/toolkit/registry.ts")), "the walk reached the registry");
    assert.deepEqual(engineModules(loaded), []);
    assert.ok(engineModules(modules).length > 10, "the engine is reachable, by import()");
    const serving = await importGraph(new URL("../stdio/serve_core.ts", import.meta.url).pathname);
    assert.ok([...serving.loaded].some((s) => s.endsWith("/engine/dispatch.ts")), "the walk reached the dispatcher");
    assert.deepEqual(engineModules(serving.loaded), []);
    const byHand = await importGraph(new URL("../stdio/serve.ts", import.meta.url).pathname);
    assert.ok(byHand.loaded.has(new URL("../jsonschema/compile_schema.ts", import.meta.url).href), "serve() loads it");
  },
});

Deno.test("without the engine, a plain schema is checked and worded; another is compiled once it is loaded", async () => {
  assert.equal(schemaEngine(), undefined, "no test before this one loaded the engine");
  const server = new Server({ name: "early" });
  const plain: ObjectSchema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
  addTool(server, { name: "plain", description: "d", inputSchema: plain, annotations: RO }, () => text("x"));
  addTool(server, { name: "early", description: "d", inputSchema: remote, annotations: RO }, () => text("x"));
  const tools = registryOf(server).tools;
  assert.equal(tools.get("plain")!.validate({ n: 1 }), undefined);
  assert.equal(
    tools.get("plain")!.validate({ n: "1" }),
    'Invalid argument "n": must be an integer (type), got the string "1"',
  );
  assert.throws(
    () => tools.get("early")!.validate({ a: 1 }),
    /Cannot check a value against its schema: nothing loaded the engine/,
  );
  assert.equal(schemaEngine(), undefined, "a plain schema needed none of it");

  // run()'s step after register: the engine is loaded for the schema that needs it, and its refusal stops the start.
  await assert.rejects(
    settleSchemas(server),
    /Cannot register tool "early": inputSchema\/properties\/a\/\$ref .* remote references are refused/,
  );
  assert.notEqual(schemaEngine(), undefined, "settleSchemas() loaded it");
  assert.throws(
    () => addTool(server, { name: "late", description: "d", inputSchema: remote, annotations: RO }, () => text("x")),
    /Cannot register tool "late": inputSchema\/properties\/a\/\$ref/,
    "once loaded, addTool refuses at once",
  );
});
