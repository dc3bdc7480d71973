import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { writePattern } from "./write_pattern.ts";

Deno.test("writePattern() lower-cases names and refuses ones a pattern cannot hold", () => {
  assert.equal(writePattern("insert", "Users"), "sql:insert:users");
  for (const name of ["a:b", "a*", "odd name", "1abc", "", "sqlite_master", "x".repeat(129)]) {
    assert.throws(() => writePattern("update", name), PolicyError, name);
  }
});
