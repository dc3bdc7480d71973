import assert from "node:assert/strict";
import { ArgumentError, ToolError } from "@forge/toolkit";
import { sqlArgs } from "./_sql_args.ts";

Deno.test("sqlArgs() reads sql and binds params, with none meaning an empty list", () => {
  assert.deepEqual(sqlArgs({ sql: "SELECT ?", params: [1] }), { sql: "SELECT ?", params: [1] });
  assert.deepEqual(sqlArgs({ sql: "SELECT 1" }), { sql: "SELECT 1", params: [] });
  assert.deepEqual(sqlArgs({ sql: "SELECT 1", params: null }), { sql: "SELECT 1", params: [] });
});

Deno.test("sqlArgs() refuses a missing sql and params that cannot be bound", () => {
  assert.throws(() => sqlArgs({}), ArgumentError);
  assert.throws(() => sqlArgs({ sql: ["SELECT 1"] }), ArgumentError);
  assert.throws(() => sqlArgs({ sql: "SELECT ?", params: 5 }), ToolError);
});
