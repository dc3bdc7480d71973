import assert from "node:assert/strict";
import { parseJsonc } from "./_jsonc.ts";

const parse = (text: string, depth = 64, values = 100_000): unknown =>
  parseJsonc(text, { maxDepth: depth, maxValues: values });
const refuses = (text: string, pattern: RegExp, depth = 64, values = 100_000): void => {
  assert.throws(() => parse(text, depth, values), (err) => err instanceof SyntaxError && pattern.test(err.message));
};

Deno.test("parseJsonc() reads strict JSON like JSON.parse", () => {
  const text = '{"a":[1,-2.5e3,true,false,null,"x\\n\\u00e9\\"",{}],"b":{"c":[]},"d":0}';
  assert.deepEqual(parse(text), JSON.parse(text));
  assert.deepEqual(parse(" 42 "), 42);
  assert.deepEqual(parse('"\\ud83d\\ude00"'), "😀");
});

Deno.test("parseJsonc() skips line and block comments", () => {
  const text = `// head
  { /* inline */ "a": 1, // tail
    /* multi
       line */ "b": [2 /* in array */] }
  // end`;
  assert.deepEqual(parse(text), { a: 1, b: [2] });
});

Deno.test("parseJsonc() keeps comment-like text inside strings", () => {
  assert.deepEqual(parse('{"url": "http://x/*y*/", "c": "// not a comment", "q": "\\"//\\""}'), {
    url: "http://x/*y*/",
    c: "// not a comment",
    q: '"//"',
  });
});

Deno.test("parseJsonc() accepts one trailing comma in objects and arrays", () => {
  assert.deepEqual(parse('{"a": [1, 2,], "b": {"c": 3,},}'), { a: [1, 2], b: { c: 3 } });
  assert.deepEqual(parse("[1, /* c */ ]"), [1]);
});

Deno.test("parseJsonc() refuses empty elements and a lone comma", () => {
  refuses("[1,,]", /unexpected character "," at line 1, column 4/);
  refuses("[,]", /unexpected character ","/);
  refuses("{,}", /expected a "quoted" key/);
});

Deno.test("parseJsonc() refuses duplicate keys, naming the key and its position", () => {
  refuses('{\n  "roots": ["/a"],\n  "roots": ["/"]\n}', /duplicate key "roots" at line 3, column 3/);
});

Deno.test("parseJsonc() keeps a __proto__ key as plain data", () => {
  const value = parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
  assert.deepEqual(Object.keys(value), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

Deno.test("parseJsonc() refuses nesting deeper than the limit without recursion", () => {
  refuses("[[[1]]]", /nesting is deeper than 2 levels at line 1, column 3/, 2);
  assert.deepEqual(parse("[[1]]", 2), [[1]]);
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  refuses(deep, /nesting is deeper than 64 levels/);
  assert.equal((parse(deep, 300_000, 300_000) as unknown[]).length, 1);
});

Deno.test("parseJsonc() refuses more values than the limit, naming it and where, before building the rest", () => {
  assert.deepEqual(parse('{"a": [1, {}], "b": null}', 64, 5), { a: [1, {}], b: null });
  refuses('{"a": [1, {}], "b": null}', /it holds more than 4 values \(maxValues\) at line 1, column 21$/, 64, 4);
  refuses("[\n" + "0,".repeat(100_000) + "]", /more than 100000 values \(maxValues\) at line 2, column 199999$/);
});

Deno.test("parseJsonc() reports line and column without echoing the document", () => {
  refuses('{\n  "a": tru\n}', /unexpected character "t" at line 2, column 8/);
  refuses('{"secret-looking": hunter2}', /unexpected character "h"/);
  assert.throws(() => parse('{"k": hunter2}'), (err: Error) => !err.message.includes("hunter2"));
});

Deno.test("parseJsonc() refuses what JSON refuses", () => {
  refuses("", /unexpected end of the document/);
  refuses("{", /expected a "quoted" key/);
  refuses('{"a"', /expected ":" after the key/);
  refuses('{"a":1', /expected "," or "}"/);
  refuses("[1 2]", /expected "," or "]"/);
  refuses("01", /unexpected text after the end/);
  refuses("{} {}", /unexpected text after the end/);
  refuses("'single'", /unexpected character "'"/);
  refuses("{a: 1}", /expected a "quoted" key/);
  refuses('"tab\there"', /control character in a string/);
  refuses('"\\x41"', /invalid escape in a string/);
  refuses('"open', /unterminated string/);
  refuses("/* open", /unterminated \/\* comment/);
  refuses("NaN", /unexpected character "N"/);
  refuses("\u0000", /unexpected character U\+0000/);
});
