import assert from "node:assert/strict";
import { PolicyError } from "./policy_error.ts";
import { singleSqlStatement } from "./single_sql_statement.ts";

function refusal(message: string): (err: unknown) => boolean {
  return (err) => err instanceof PolicyError && err.code === "sql" && err.message === message;
}

Deno.test("singleSqlStatement() returns one statement's tokens without the trailing semicolon", () => {
  assert.deepEqual(singleSqlStatement("UPDATE t SET a = ';' -- ;\n;").map((t) => t.text), [
    "UPDATE",
    "t",
    "SET",
    "a",
    "=",
    "';'",
  ]);
  assert.equal(singleSqlStatement("x".repeat(10), { maxLength: 10 }).length, 1);
});

Deno.test("singleSqlStatement() refuses what is not exactly one statement, naming the caller's action", () => {
  const cases: [unknown, string][] = [
    [42, "the SQL must be a string"],
    ["x".repeat(11), "the SQL is longer than 10 characters"],
    ["SELECT 1\0", "the SQL contains a NUL byte"],
    [" ; -- nothing\n", "the SQL is empty"],
    ["SELECT 1; DELETE FROM t", "exactly one statement is allowed, found 2"],
  ];
  for (const [sql, state] of cases) {
    assert.throws(
      () =>
        singleSqlStatement(sql as string, { maxLength: 10 + (state.includes("longer") ? 0 : 100), action: "execute" }),
      refusal(`Cannot execute: ${state}`),
      String(sql),
    );
  }
  assert.throws(
    () => singleSqlStatement("SELECT 'open"),
    (err) => err instanceof PolicyError && /^Cannot run query: /.test(err.message),
  );
});
