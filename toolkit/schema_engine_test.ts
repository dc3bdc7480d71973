// test-permissions: --allow-run --allow-read={repo}
// test-alone: its tests need an isolate where nothing has loaded the schema engine yet
// Nothing in this file loads the serving half before the tests below do: the
// engine is absent until the last test loads it.
import assert from "node:assert/strict";
import { addTool, Server, text } from "../mod.ts";
import { importGraph } from "../internal/testdata/import_graph.ts";
import { registryOf } from "./registry.ts";
import { schemaEngine } from "./schema_engine.ts";
import type { ObjectSchema } from "./schema.ts";

const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const remote: ObjectSchema = { type: "object", properties: { a: { $ref: "https://example.com/a.json" } } };

Deno.test({
  name: "importing @forge/toolkit (as --health does) loads no module of the schema engine",
  permissions: { run: true, read: [new URL("..", import.meta.url).pathname] },
  async fn() {
    const { modules, loaded } = await importGraph(new URL("../mod.ts", import.meta.url).pathname);
    assert.ok([...loaded].some((s) => s.endsWith("/toolkit/registry.ts")), "the walk reached the registry");
    assert.deepEqual([...loaded].filter((s) => s.includes("/jsonschema/")), []);
    assert.ok(modules.some((s) => s.includes("/jsonschema/")), "the engine is reachable, by import()");
  },
});

Deno.test("a tool registered before the engine is loaded is compiled when first used, then refused as usual", async () => {
  assert.equal(schemaEngine(), undefined, "no test before this one loaded the serving half");
  const server = new Server({ name: "early" });
  addTool(server, { name: "early", description: "d", inputSchema: remote, annotations: RO }, () => text("x"));
  const entry = registryOf(server).tools.get("early")!;
  assert.throws(() => entry.validate({ a: 1 }), /Cannot check a value against its schema: nothing loaded the engine/);

  await import("../engine/dispatch.ts");
  assert.notEqual(schemaEngine(), undefined, "the serving half provides it");
  assert.throws(
    () => entry.validate({ a: 1 }),
    /Cannot register tool "early": inputSchema\/properties\/a\/\$ref .* remote references are refused/,
  );
  assert.throws(
    () => addTool(server, { name: "late", description: "d", inputSchema: remote, annotations: RO }, () => text("x")),
    /Cannot register tool "late": inputSchema\/properties\/a\/\$ref/,
    "once loaded, addTool refuses at once",
  );
});
