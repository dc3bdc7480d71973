import assert from "node:assert/strict";
import { sqlIdentifier, SqlLexError, tokenizeSql } from "./sql_tokens.ts";

Deno.test("tokenizeSql() drops comments and keeps literals whole", () => {
  const tokens = tokenizeSql('SELECT \'a;b\' -- x;\n, "c""d" /* ; */ FROM [t;1] WHERE x = ?1 AND y = :y;');
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

Deno.test("tokenizeSql() reads blobs, numbers and escaped quotes", () => {
  assert.deepEqual(tokenizeSql("x'00ff' 1.5e3 .5 'it''s'").map((t) => t.text), ["x'00ff'", "1.5e3", ".5", "'it''s'"]);
});

Deno.test("tokenizeSql() refuses what it cannot close or read", () => {
  for (const sql of ["'open", "/* open", '"open', "`open", "[open", "x'00", "SELECT #", "SELECT @"]) {
    assert.throws(() => tokenizeSql(sql), SqlLexError, sql);
  }
});

Deno.test("sqlIdentifier() unquotes the three quoting styles and undoes doubled quotes", () => {
  const names = tokenizeSql('plain "dq""x" [br acket] `bq``y` \'str\' 1 ?').map(sqlIdentifier);
  assert.deepEqual(names, ["plain", 'dq"x', "br acket", "bq`y", undefined, undefined, undefined]);
  assert.equal(sqlIdentifier(undefined), undefined);
});
