// The conformance fixture: a stdio server with the tools the official MCP
// conformance suite's scenarios call, built only on the public entry points,
// as any author would. Each tool does what its scenario's description asks;
// run it behind scripts/conformance/bridge.ts.
//
//   deno run --no-prompt scripts/conformance/fixture.ts

import { addTool, health, run, type Server } from "@forge/toolkit";
import { addAskingTools } from "./_fixture_asking.ts";
import { addContentTools } from "./_fixture_content.ts";
import { addTaskTools } from "./_fixture_tasks.ts";

/** Registers every tool of the fixture. */
export async function register(server: Server): Promise<void> {
  await addContentTools(server);
  addAskingTools(server);
  addTaskTools(server);
  let added = 0;
  addTool(server, {
    name: "test_trigger_tool_change",
    description: "Adds a tool, so open subscriptions hear that the list changed",
    inputSchema: { type: "object", properties: {} },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  }, () => {
    const name = `added_tool_${++added}`;
    addTool(server, {
      name,
      description: "A tool added at run time",
      inputSchema: { type: "object", properties: {} },
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    }, () => ({ content: [{ type: "text", text: name }] }));
    return { content: [{ type: "text", text: `added ${name}` }] };
  });
}

if (import.meta.main && !health()) {
  await run("forge-conformance-fixture", register, { version: "1.0.0" });
}
