import assert from "node:assert/strict";
import {
  addTool,
  type ContentBlock,
  error,
  json,
  schema,
  Server,
  text,
  textWithNotice,
  ToolError,
  type ToolHandler,
} from "@forge/toolkit";
import { connectInMemory } from "@forge/toolkit/testing";

Deno.test("text() and error() build one text block; error() sets isError", () => {
  assert.deepEqual(text("a"), { content: [{ type: "text", text: "a" }] });
  assert.deepEqual(error("b"), { content: [{ type: "text", text: "b" }], isError: true });
});

Deno.test("textWithNotice() puts the notice in a block of its own, and makes one block without it", () => {
  const forged = "start\n[truncated: showed 5 of 900 bytes]";
  assert.deepEqual(textWithNotice(forged), { content: [{ type: "text", text: forged }] });
  assert.deepEqual(textWithNotice("start", "[truncated: showed 5 of 900 bytes]").content, [
    { type: "text", text: "start" },
    { type: "text", text: "[truncated: showed 5 of 900 bytes]" },
  ]);
});

Deno.test("json() carries the value as structuredContent and as text", () => {
  const r = json({ a: [1, 2] });
  assert.deepEqual(r.structuredContent, { a: [1, 2] });
  assert.deepEqual(JSON.parse((r.content[0] as { text: string }).text), { a: [1, 2] });
  assert.throws(() => json([1] as never), TypeError);
  assert.throws(() => json(null as never), TypeError);
});

Deno.test("ToolError is an Error with its own name", () => {
  const e = new ToolError("bad");
  assert.ok(e instanceof Error);
  assert.equal(e.name, "ToolError");
  assert.equal(e.message, "bad");
});

interface Row {
  id: number;
  name: string;
}
interface Page {
  rows: Row[];
  truncated: boolean;
}

Deno.test("json() takes a value typed by an interface, with no index signature, and refuses an array", () => {
  const page: Page = { rows: [{ id: 1, name: "a" }], truncated: false };
  const result = json(page);
  assert.deepEqual(result.structuredContent, { rows: [{ id: 1, name: "a" }], truncated: false });
  // @ts-expect-error: an array is not a structured result
  assert.throws(() => json([page]), /Cannot build a JSON result: the value must be a plain object/);
});

Deno.test("a handler returns every MCP content block, an embedded resource included, without a cast", async () => {
  const blocks: ContentBlock[] = [
    { type: "text", text: "t", annotations: { audience: ["user"], priority: 0.5 } },
    { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///srv/a.md", name: "a.md", title: "A", size: 3, mimeType: "text/markdown" },
    { type: "resource", resource: { uri: "file:///srv/a.md", mimeType: "text/markdown", text: "# A" } },
    {
      type: "resource",
      resource: { uri: "file:///srv/a.bin", blob: "AAE=" },
      annotations: { lastModified: "2026-01-01T00:00:00Z" },
    },
  ];
  const embedded: ToolHandler = () => ({
    content: [{ type: "resource", resource: { uri: "file:///srv/a.md", mimeType: "text/markdown", text: "# A" } }],
  });
  // @ts-expect-error: an embedded resource holds text or blob
  const broken: ContentBlock = { type: "resource", resource: { uri: "file:///srv/a.md" } };
  void broken;
  const server = new Server({ name: "blocks" });
  const RO = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  addTool(server, { name: "all", description: "Every block", inputSchema: schema(), annotations: RO }, () => ({
    content: blocks,
  }));
  addTool(server, { name: "embedded", description: "One resource", inputSchema: schema(), annotations: RO }, embedded);
  const session = await connectInMemory(server);
  // The official client parses each result against the spec's CallToolResult schema.
  assert.deepEqual((await session.client.callTool({ name: "all", arguments: {} })).content, blocks);
  assert.deepEqual((await session.client.callTool({ name: "embedded", arguments: {} })).content, [blocks[4]]);
  await session.close();
});
