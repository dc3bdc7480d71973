import assert from "node:assert/strict";
import { SqlLexError } from "@forge/toolkit/validate/sql-tokens";
import { optionValues } from "./content_views.ts";

Deno.test("optionValues() takes every value after an = in a module's arguments, whatever the key, unquoted, and throws on what it cannot tokenize", () => {
  assert.deepEqual(optionValues(`CREATE VIRTUAL TABLE f USING fts5(body, CO="c""v", x = [a b], y=\`z\`, t='it''s')`), [
    'c"v',
    "a b",
    "z",
    "it's",
  ]);
  assert.deepEqual(optionValues("CREATE VIRTUAL TABLE f USING fts4(content=cv, body)"), ["cv"]);
  assert.deepEqual(optionValues("CREATE VIRTUAL TABLE f USING fts5(body)"), []);
  assert.deepEqual(optionValues("CREATE VIRTUAL TABLE f USING m"), []);
  assert.throws(() => optionValues("CREATE VIRTUAL TABLE f USING fts5(content='cv"), SqlLexError);
});
