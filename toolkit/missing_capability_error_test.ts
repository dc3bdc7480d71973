import assert from "node:assert/strict";
import { MissingCapabilityError } from "./missing_capability_error.ts";
import { ToolError } from "../internal/tool_error.ts";

Deno.test("MissingCapabilityError is a ToolError that names the capability and the request", () => {
  const err = new MissingCapabilityError("roots", "roots/list");
  assert.ok(err instanceof ToolError);
  assert.equal(err.name, "MissingCapabilityError");
  assert.equal(err.capability, "roots");
  assert.equal(err.message, "Cannot send roots/list to the client: it did not declare the roots capability");
});
