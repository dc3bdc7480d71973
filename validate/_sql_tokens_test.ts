import assert from "node:assert/strict";
import { SqlLexError, tokenize } from "./_sql_tokens.ts";

Deno.test("tokenize() drops comments and keeps literals whole", () => {
  const tokens = tokenize('SELECT \'a;b\' -- x;\n, "c""d" /* ; */ FROM [t;1] WHERE x = ?1 AND y = :y;');
  assert.deepEqual(tokens.map((t) => t.kind), [
    "word",
    "string",
    "op",
    "quoted",
    "word",
    "quoted",
    "word",
    "word",
    "op",
    "param",
    "word",
    "word",
    "op",
    "param",
    "semicolon",
  ]);
  assert.equal(tokens[1].text, "'a;b'");
  assert.equal(tokens[3].text, '"c""d"');
});

Deno.test("tokenize() reads blobs, numbers and escaped quotes", () => {
  assert.deepEqual(tokenize("x'00ff' 1.5e3 .5 'it''s'").map((t) => t.text), ["x'00ff'", "1.5e3", ".5", "'it''s'"]);
});

Deno.test("tokenize() refuses what it cannot close or read", () => {
  for (const sql of ["'open", "/* open", '"open', "`open", "[open", "x'00", "SELECT #", "SELECT @"]) {
    assert.throws(() => tokenize(sql), SqlLexError, sql);
  }
});
