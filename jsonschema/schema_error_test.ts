import assert from "node:assert/strict";
import { SchemaError } from "./schema_error.ts";

Deno.test("SchemaError is a TypeError whose message starts with Cannot and whose problem stands alone", () => {
  const err = new SchemaError("inputSchema/minLength must be a non-negative integer");
  assert.ok(err instanceof TypeError);
  assert.equal(err.name, "SchemaError");
  assert.equal(err.message, "Cannot compile the schema: inputSchema/minLength must be a non-negative integer");
  assert.equal(err.problem, "inputSchema/minLength must be a non-negative integer");
});
