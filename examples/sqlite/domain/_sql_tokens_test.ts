import assert from "node:assert/strict";
import { identifierOf, tokenize } from "./_sql_tokens.ts";

Deno.test("tokenize() drops comments and keeps literals, quoted names and parameters whole", () => {
  const tokens = tokenize(`INSERT /* c; */ INTO "a""b" VALUES ('x;y', x'00', ?1, :n, 1.5e3) -- ; DROP`);
  assert.deepEqual(tokens.map((t) => `${t.kind}:${t.text}`), [
    "word:INSERT",
    "word:INTO",
    'quoted:"a""b"',
    "word:VALUES",
    "op:(",
    "string:'x;y'",
    "op:,",
    "blob:x'00'",
    "op:,",
    "param:?1",
    "op:,",
    "param::n",
    "op:,",
    "number:1.5e3",
    "op:)",
  ]);
});

Deno.test("tokenize() finds semicolons only outside literals and comments", () => {
  const kinds = tokenize("SELECT ';'; /* ; */ SELECT [a;b]; `c;d`").map((t) => t.kind);
  assert.equal(kinds.filter((k) => k === "semicolon").length, 2);
});

Deno.test("tokenize() refuses unclosed comments, strings, quoted names and stray characters", () => {
  for (const sql of ["SELECT /* x", "SELECT 'x", 'SELECT "x', "SELECT [x", "SELECT `x", "SELECT #", "SELECT \u0001"]) {
    assert.throws(() => tokenize(sql), SyntaxError, sql);
  }
});

Deno.test("identifierOf() unquotes the three quoting styles and undoes doubled quotes", () => {
  const names = tokenize('plain "dq""x" [br acket] `bq``y` \'str\'').map(identifierOf);
  assert.deepEqual(names, ["plain", 'dq"x', "br acket", "bq`y", undefined]);
  assert.equal(identifierOf(undefined), undefined);
});
