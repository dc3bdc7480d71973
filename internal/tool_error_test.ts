import assert from "node:assert/strict";
import { ArgumentError, ToolError } from "./tool_error.ts";

Deno.test("ToolError carries the model's message by its own name, and keeps a cause for the server", () => {
  const cause = new Error("host detail");
  const err = new ToolError("Cannot read: not found", { cause });
  assert.ok(err instanceof Error);
  assert.equal(err.name, "ToolError");
  assert.equal(err.message, "Cannot read: not found");
  assert.equal(err.cause, cause);
});

Deno.test("ArgumentError names the argument, quoted and cut short, and is a ToolError", () => {
  const err = new ArgumentError("path", "must be a string");
  assert.ok(err instanceof ToolError);
  assert.equal(err.name, "ArgumentError");
  assert.equal(err.argument, "path");
  assert.equal(err.message, 'Invalid argument "path": must be a string');
  const hostile = new ArgumentError("a\n".repeat(10_000), "is unknown");
  assert.ok(hostile.message.length < 300, `${hostile.message.length} characters`);
  assert.doesNotMatch(hostile.message, /\n/);
});
