import assert from "node:assert/strict";
import { ToolError } from "../internal/tool_error.ts";
import { PolicyError } from "./policy_error.ts";

Deno.test("PolicyError is a ToolError with a code, and keeps its cause off the message", () => {
  const cause = new Error("/real/host/path");
  const err = new PolicyError("symlink-escape", 'Cannot read "x": it leaves the allowed folders', { cause });
  assert.ok(err instanceof ToolError);
  assert.equal(err.name, "PolicyError");
  assert.equal(err.code, "symlink-escape");
  assert.equal(err.cause, cause);
  assert.ok(!err.message.includes("/real/host/path"));
});
