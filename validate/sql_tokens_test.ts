import assert from "node:assert/strict";
import {
  splitSqlStatements,
  sqlIdentifier,
  SqlLexError,
  sqlLowerCase,
  sqlNames,
  sqlUpperCase,
  tokenizeSql,
} from "./sql_tokens.ts";

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

Deno.test("tokenizeSql() refuses TCL-style parameters, which SQLite reads past the name", () => {
  for (const sql of ["SELECT $a(x)", "SELECT :a(') , 1 --'", "SELECT @a::b", "SELECT $a::"]) {
    assert.throws(() => tokenizeSql(sql), SqlLexError, sql);
  }
  assert.deepEqual(tokenizeSql("SELECT $a, :b, @c, ?1, ?").map((t) => t.kind).filter((k) => k === "param").length, 5);
  assert.deepEqual(tokenizeSql("SELECT :a:b").map((t) => t.text), ["SELECT", ":a", ":b"]);
});

Deno.test("tokenizeSql() reads `?` with digits only, as SQLite does: `?FROM` is a parameter, then FROM", () => {
  assert.deepEqual(tokenizeSql("SELECT ?FROM 'pragma_database_list'").map((t) => [t.kind, t.text]), [
    ["word", "SELECT"],
    ["param", "?"],
    ["word", "FROM"],
    ["string", "'pragma_database_list'"],
  ]);
  assert.deepEqual(tokenizeSql("SELECT ?12x").map((t) => t.text), ["SELECT", "?12", "x"]);
  // So the string after it is judged as the table name SQLite takes it for.
  assert.deepEqual(sqlNames(tokenizeSql("SELECT ?FROM 'c'")).filter((n) => n !== undefined), ["SELECT", "FROM", "c"]);
});

Deno.test("tokenizeSql() gives each token its start offset", () => {
  const sql = "SELECT /* c */ 'a''b', x'00', \"q\", [b], `t`, 1.5, :p, w -- end\n;";
  for (const token of tokenizeSql(sql)) {
    assert.equal(sql.slice(token.start, token.start + token.text.length), token.text);
  }
});

Deno.test("sqlNames() resolves identifiers, and string literals only where SQLite takes them as table names", () => {
  const cases: [string, string[]][] = [
    ["SELECT 'a', \"b\" FROM 'c' WHERE y = 'f'", ["SELECT", "b", "FROM", "c", "WHERE", "y"]],
    ["SELECT * FROM t, 'c' AS x JOIN main.'d' ON 1", [
      "SELECT",
      "FROM",
      "t",
      "c",
      "AS",
      "x",
      "JOIN",
      "main",
      "d",
      "ON",
    ]],
    ["SELECT * FROM ('c')", ["SELECT", "FROM", "c"]],
    ["SELECT * FROM (SELECT 'a', 'b' FROM t), 'c'", ["SELECT", "FROM", "SELECT", "FROM", "t", "c"]],
    ["SELECT 1 WHERE 'x' IN 'c'", ["SELECT", "WHERE", "IN", "c"]],
    ["SELECT f('a', 'b') FROM t WHERE z IN (1, 'g')", ["SELECT", "f", "FROM", "t", "WHERE", "z", "IN"]],
    ["INSERT INTO t VALUES (1, 'edit'), ('x', 'y')", ["INSERT", "INTO", "t", "VALUES"]],
  ];
  for (const [sql, expected] of cases) {
    assert.deepEqual(sqlNames(tokenizeSql(sql)).filter((n) => n !== undefined), expected, sql);
  }
});

Deno.test("splitSqlStatements() splits at `;` tokens only and leaves empty statements out", () => {
  const texts = (sql: string) => splitSqlStatements(tokenizeSql(sql)).map((s) => s.map((t) => t.text).join(" "));
  assert.deepEqual(texts("SELECT ';' -- ; \n; ;; SELECT 2;"), ["SELECT ';'", "SELECT 2"]);
  assert.deepEqual(texts(" ; ; "), []);
  assert.deepEqual(texts("SELECT 1"), ["SELECT 1"]);
});

Deno.test("sqlLowerCase() and sqlUpperCase() fold ASCII letters only, as SQLite compares names and keywords", () => {
  assert.equal(sqlLowerCase("Main.ÄÖ_Table"), "main.ÄÖ_table");
  assert.equal(sqlLowerCase("\u212A"), "\u212A", "the Kelvin sign is no K to SQLite");
  assert.equal(sqlUpperCase("select ä"), "SELECT ä");
  assert.equal(sqlUpperCase("ſelect"), "ſELECT", "the long s is no s to SQLite");
});
