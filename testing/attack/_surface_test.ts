// test-permissions: --allow-read={tmp} --allow-write={tmp} --allow-net=127.0.0.1 --allow-run=ln
import assert from "node:assert/strict";
import { addTool, schema, Server, text } from "@forge/toolkit";
import { request } from "./_case.ts";
import { Surface } from "./_surface.ts";
import { createWorld } from "./_world.ts";
import { inMemoryTarget } from "./in_memory_target.ts";

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

Deno.test("a surface of 2025-03-26 gets a batch answered as one array, and the toolkit's answers pass the judge", async () => {
  const world = await createWorld();
  const target = inMemoryTarget(() => {
    const server = new Server({ name: "t" });
    addTool(server, { name: "hi", description: "Hi", inputSchema: schema(), annotations: READ }, () => text("hi"));
    return server;
  });
  const settings = () => ({
    watch: [world.dir],
    maxWatchedEntries: 100,
    pollution: true,
    logs: [],
    ground: {
      secret: world.secret,
      marker: world.marker,
      writable: [],
      roots: [],
      sensitive: [world.dir],
      deadlineMs: 5_000,
      maxRssBytes: undefined,
    },
  });
  const { surface, verdicts } = await Surface.open(target, world, "2025-03-26", settings);
  assert.deepEqual(verdicts, []);
  assert.deepEqual(surface.tools.map((t) => t.name), ["hi"]);
  const batch = `[${request("2025-03-26", "1", "tools/list")},${request("2025-03-26", "2", "tools/list")}]`;
  const found = await surface.run({
    tag: "b1",
    kind: "protocol",
    category: "protocol",
    title: "batch",
    steps: [{ line: batch }],
    expect: [],
    batch: ["1", "2"],
  });
  assert.deepEqual(found, []);
  assert.match(surface.connection.lines.find((l) => l.startsWith("["))!, /^\[\{"jsonrpc":"2\.0","id":1,/);
  assert.deepEqual(await surface.close(1_000), []);
  await world.dispose();
});
