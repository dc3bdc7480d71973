import assert from "node:assert/strict";
import { error, json, text, ToolError } from "@forge/toolkit";

Deno.test("text() and error() build one text block; error() sets isError", () => {
  assert.deepEqual(text("a"), { content: [{ type: "text", text: "a" }] });
  assert.deepEqual(error("b"), { content: [{ type: "text", text: "b" }], isError: true });
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
