import assert from "node:assert/strict";
import { ToolError } from "@forge/toolkit";
import { sqlArgs } from "./_sql_args.ts";

Deno.test("sqlArgs() reads sql and binds params, with none meaning an empty list", () => {
  assert.deepEqual(sqlArgs({ sql: "SELECT ?", params: [1] }), { sql: "SELECT ?", params: [1] });
  assert.deepEqual(sqlArgs({ sql: "SELECT 1" }), { sql: "SELECT 1", params: [] });
  assert.deepEqual(sqlArgs({ sql: "SELECT 1", params: null }), { sql: "SELECT 1", params: [] });
});

// A missing or mistyped `sql` never reaches sqlArgs(): the tools' schema refuses it (run_query_test.ts).
Deno.test("sqlArgs() refuses params that cannot be bound", () => {
  assert.throws(() => sqlArgs({ sql: "SELECT ?", params: 5 }), ToolError);
});
