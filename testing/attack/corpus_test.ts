import assert from "node:assert/strict";
import { attackString } from "./corpus.ts";

Deno.test("attackString() writes the string as JSON and marks large values only when asked", () => {
  assert.deepEqual(attackString("n", "log", "a\nb"), { name: "n", category: "log", json: '"a\\nb"' });
  assert.equal(attackString("n", "size", "x", true).large, true);
});
