import assert from "node:assert/strict";
import { compileSchema } from "./mod.ts";
import { codePoints, isMultipleOf } from "./_validation.ts";

Deno.test("type accepts one JSON type or a list, and counts 1.0 as an integer", () => {
  const integer = compileSchema({ type: "integer" });
  assert.deepEqual([1, 1.0, -3, 1.5, "1", null].map((v) => integer(v) === undefined), [
    true,
    true,
    true,
    false,
    false,
    false,
  ]);
  const either = compileSchema({ type: ["string", "null"] });
  assert.deepEqual(["a", null, 0, [], {}].map((v) => either(v) === undefined), [true, true, false, false, false]);
  const kinds = ["object", "array", "boolean", "number", "null", "string"];
  const values = [{}, [], false, 2.5, null, ""];
  for (const [i, type] of kinds.entries()) {
    const check = compileSchema({ type });
    assert.deepEqual(values.map((v) => check(v) === undefined), values.map((_, j) => j === i), type);
  }
});

Deno.test("type number refuses a value JSON cannot carry (a handler's NaN or Infinity)", () => {
  const check = compileSchema({ type: "number" });
  assert.equal(check(NaN)?.keyword, "type");
  assert.equal(check(Infinity)?.keyword, "type");
});

Deno.test("type names the expected types and the value it got", () => {
  assert.equal(compileSchema({ type: "string" })(7)?.message, "must be a string (type), got the number 7");
  assert.equal(
    compileSchema({ type: ["string", "integer"] })(1.5)?.message,
    "must be a string or an integer (type), got the number 1.5",
  );
});

Deno.test("type is refused at compile time when it names no JSON type or one twice", () => {
  for (const type of ["int", [], ["string", "string"], 7]) {
    assert.throws(() => compileSchema({ type }), /schema\/type must name JSON types, each once/);
  }
});

Deno.test("const compares objects by JSON equality, whatever the order of their keys", () => {
  const check = compileSchema({ const: { a: 2, b: { c: [1, { d: null, e: "x" }] } } });
  assert.equal(check({ b: { c: [1, { e: "x", d: null }] }, a: 2 }), undefined);
  assert.equal(check({ a: 2, b: { c: [{ d: null, e: "x" }, 1] } })?.keyword, "const", "arrays keep their order");
  assert.equal(check({ a: 2, b: { c: [1, { d: null, e: "x" }] }, f: 1 })?.keyword, "const", "no extra keys");
  assert.equal(check({ a: 2 })?.keyword, "const");
});

Deno.test("enum compares by JSON equality: key order is free, types are not mixed, 1 and 1.0 are one number", () => {
  const check = compileSchema({ enum: [{ x: 1, y: [true] }, 1, "1", null, [0]] });
  const cases: [unknown, boolean][] = [
    [{ y: [true], x: 1 }, true],
    [{ x: 1.0, y: [true] }, true],
    [1.0, true],
    ["1", true],
    [null, true],
    [[0], true],
    [[-0], true],
    [{ x: 1, y: [1] }, false],
    [true, false],
    [[false], false],
    [{}, false],
    [0, false],
  ];
  for (const [value, valid] of cases) assert.equal(check(value) === undefined, valid, JSON.stringify(value));
});

Deno.test("const false is not 0 and const 0 is not false; const null is not a missing value", () => {
  assert.equal(compileSchema({ const: false })(0)?.keyword, "const");
  assert.equal(compileSchema({ const: 0 })(false)?.keyword, "const");
  assert.equal(compileSchema({ const: null })(null), undefined);
  assert.equal(compileSchema({ const: null })(0)?.keyword, "const");
});

Deno.test("const and enum show the allowed values, at most ten, each cut short", () => {
  assert.equal(compileSchema({ const: "file" })("dir")?.message, 'must be "file" (const), got the string "dir"');
  assert.equal(
    compileSchema({ enum: ["asc", "desc"] })("up")?.message,
    'must be one of "asc", "desc" (enum), got the string "up"',
  );
  const many = compileSchema({ enum: Array.from({ length: 12 }, (_, i) => i) })(99)?.message;
  assert.equal(many, "must be one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (enum), got the number 99");
  const long = compileSchema({ const: "x".repeat(1000) })("y")?.message ?? "";
  assert.ok(long.length < 120, long);
});

Deno.test("an empty enum allows nothing, and an enum that is not an array is refused", () => {
  assert.equal(
    compileSchema({ enum: [] })("a")?.message,
    'cannot be any value: the list is empty (enum), got the string "a"',
  );
  assert.throws(() => compileSchema({ enum: "a" }), /schema\/enum must be an array/);
});

Deno.test("minLength and maxLength count code points, not UTF-16 units", () => {
  const check = compileSchema({ minLength: 2, maxLength: 2 });
  assert.equal(check("😀😀"), undefined);
  assert.equal(check("😀")?.message, "must be at least 2 characters long (minLength), got 1");
  assert.equal(check("😀😀😀")?.message, "must be at most 2 characters long (maxLength), got 3");
  assert.equal(check(12345), undefined, "length rules ignore what is not a string");
  assert.equal(codePoints("a😀\ud800b"), 4, "a lone surrogate counts as one");
});

Deno.test("pattern is unanchored and matches by code point", () => {
  const check = compileSchema({ pattern: "^.$" });
  assert.equal(check("😀"), undefined);
  assert.equal(check("ab")?.message, 'must match the pattern "^.$" (pattern)');
  assert.equal(compileSchema({ pattern: "b" })("abc"), undefined);
  assert.equal(compileSchema({ pattern: "^a" })(7), undefined);
});

Deno.test("pattern takes the older ECMA-262 syntax that the u flag refuses, and refuses what neither accepts", () => {
  const escaped = compileSchema({ pattern: "^[0-9]{3}\\-[0-9]{4}$" });
  assert.equal(escaped("555-1234"), undefined);
  assert.equal(escaped("5551234")?.keyword, "pattern");
  assert.throws(() => compileSchema({ pattern: "(" }), /schema\/pattern is not a valid regular expression/);
  assert.throws(() => compileSchema({ pattern: 5 }), /schema\/pattern must be a string/);
});

Deno.test("a string that breaks both maxLength and pattern is refused for its length: the pattern never sees it", () => {
  const check = compileSchema({ maxLength: 20, pattern: "^(a+)+$" });
  assert.equal(check(`${"a".repeat(100_000)}!`)?.keyword, "maxLength");
});

Deno.test("a pattern that backtracks in V8 answers a 100,001-character string at once, with no maxLength", () => {
  const check = compileSchema({ pattern: "^(a+)+$" });
  assert.equal(check(`${"a".repeat(100_000)}!`)?.keyword, "pattern");
  assert.equal(check("a".repeat(100_000)), undefined);
  const names = compileSchema({ patternProperties: { "^(a|a)*$": false } });
  assert.equal(names({ [`${"a".repeat(100_000)}!`]: 1 }), undefined, "the name does not match: no subschema applies");
});

Deno.test("a backreference runs only under a maxLength, and is refused elsewhere with the reason", () => {
  const bounded = compileSchema({ maxLength: 8, pattern: "^(a)\\1$" });
  assert.equal(bounded("aa"), undefined);
  assert.equal(bounded("ab")?.keyword, "pattern");
  assert.throws(
    () => compileSchema({ pattern: "^(?<x>a)\\k<x>$" }),
    /schema\/pattern uses the backreference "\\\\k<x>", which no linear-time matcher can follow: remove it, or bound the string with maxLength/,
  );
  assert.throws(
    () => compileSchema({ propertyNames: { maxLength: 4 }, patternProperties: { "(a)\\1": {} } }),
    /schema\/patternProperties\/\(a\)\\1 uses the backreference "\\\\1", which no linear-time matcher can follow: remove it$/,
  );
});

Deno.test("a pattern whose counted repetitions expand past the matcher's limit is refused, saying so", () => {
  assert.throws(
    () => compileSchema({ pattern: "(a{1000}){1000}" }),
    /schema\/pattern repeats more than a linear-time matcher takes \(20000 instructions\): lower its counts/,
  );
  assert.equal(compileSchema({ pattern: "^[a-z]{1,1000}$" })("abc"), undefined, "a thousand copies are fine");
});

Deno.test("an older-syntax pattern no respelling saves is refused: an octal escape", () => {
  assert.equal(new RegExp("\\01").test("\x01"), true, "the older syntax accepts it");
  assert.throws(() => compileSchema({ pattern: "\\01" }), /schema\/pattern is not a valid regular expression/);
});

Deno.test("minLength and maxLength must be non-negative integers", () => {
  for (const bad of [-1, 1.5, "2", null]) {
    assert.throws(() => compileSchema({ maxLength: bad }), /schema\/maxLength must be a non-negative integer/);
  }
  assert.equal(compileSchema({ maxLength: 2.0 })("ab"), undefined, "2.0 is the integer 2");
});

Deno.test("minimum, maximum and the exclusive bounds name the bound and the value", () => {
  const check = compileSchema({ minimum: 1, maximum: 10, exclusiveMinimum: 0, exclusiveMaximum: 11 });
  assert.equal(check(1), undefined);
  assert.equal(check(10), undefined);
  assert.equal(check(12)?.message, "must be at most 10 (maximum), got 12");
  assert.equal(check(0.5)?.message, "must be at least 1 (minimum), got 0.5");
  assert.equal(compileSchema({ exclusiveMinimum: 0 })(0)?.message, "must be greater than 0 (exclusiveMinimum), got 0");
  assert.equal(compileSchema({ exclusiveMaximum: 1 })(1)?.message, "must be less than 1 (exclusiveMaximum), got 1");
  assert.equal(check("12"), undefined, "bounds ignore what is not a number");
});

Deno.test("multipleOf decides on the decimals, not on binary floating point", () => {
  assert.ok(isMultipleOf(0.0075, 0.0001));
  assert.ok(isMultipleOf(0.3, 0.1));
  assert.ok(!isMultipleOf(0.00751, 0.0001));
  assert.ok(isMultipleOf(12391239123, 1e-8));
  assert.ok(!isMultipleOf(1e308, 0.123456789));
  assert.ok(isMultipleOf(-4.5, 1.5));
  assert.ok(isMultipleOf(10, 2) && !isMultipleOf(7, 2));
  assert.ok(isMultipleOf(2e20, 2) && !isMultipleOf(2e20, 3));
  assert.equal(compileSchema({ multipleOf: 0.5 })(1.2)?.message, "must be a multiple of 0.5 (multipleOf), got 1.2");
});

Deno.test("numeric keywords must be finite numbers, multipleOf above zero, exclusive bounds not booleans", () => {
  assert.throws(() => compileSchema({ multipleOf: 0 }), /schema\/multipleOf must be greater than 0/);
  assert.throws(() => compileSchema({ exclusiveMinimum: true }), /schema\/exclusiveMinimum must be a finite number/);
  assert.throws(() => compileSchema({ maximum: "10" }), /schema\/maximum must be a finite number/);
});

Deno.test("minItems and maxItems count the items", () => {
  const check = compileSchema({ minItems: 1, maxItems: 2 });
  assert.equal(check([1]), undefined);
  assert.equal(check([])?.message, "must hold at least 1 items (minItems), got 0");
  assert.equal(check([1, 2, 3])?.message, "must hold at most 2 items (maxItems), got 3");
  assert.equal(check("abc"), undefined);
});

Deno.test("uniqueItems compares by JSON equality, whatever the key order, and names the two equal items", () => {
  const check = compileSchema({ uniqueItems: true });
  assert.equal(check([1, "1", true, null, [1], { a: 1 }, [true], { a: "1" }]), undefined);
  assert.equal(
    check([{ a: 1, b: 2 }, { b: 2, a: 1 }])?.message,
    "must hold unique items (uniqueItems), but items 0 and 1 are equal",
  );
  assert.equal(check([1, 2, 1.0])?.message, "must hold unique items (uniqueItems), but items 0 and 2 are equal");
  assert.equal(check([[{ x: [1] }], [{ x: [1] }]])?.keyword, "uniqueItems");
  assert.equal(check([0, false]), undefined);
  assert.equal(compileSchema({ uniqueItems: false })([1, 1]), undefined);
  assert.throws(() => compileSchema({ uniqueItems: "yes" }), /schema\/uniqueItems must be true or false/);
});

Deno.test("uniqueItems checks 100,000 distinct objects, the most a message may hold, keyed one by one", () => {
  const check = compileSchema({ uniqueItems: true });
  const items = Array.from({ length: 99_999 }, (_, i) => ({ id: i }));
  assert.equal(check(items), undefined);
  items.push({ id: 99_998 });
  assert.equal(check(items)?.message, "must hold unique items (uniqueItems), but items 99998 and 99999 are equal");
});

/** Nested arrays `depth` deep, `[[…[leaf, 0]…, 1], 0]`, whose leaf counts the reads of its one property. */
function deepWithCountedLeaf(depth: number): { value: unknown; reads: () => number } {
  let reads = 0;
  let value: unknown = [Object.defineProperty({}, "s", { enumerable: true, get: () => (reads++, "x") }), 0];
  for (let i = 0; i < depth; i++) value = [value, i];
  return { value, reads: () => reads };
}

Deno.test("uniqueItems through a recursive schema keys each part of the value once, whatever its depth", () => {
  // Keyed by their whole JSON, each level's items would read the leaf again: once per level.
  const check = compileSchema({
    $defs: {
      list: { type: "array", uniqueItems: true, items: { anyOf: [{ type: "integer" }, { $ref: "#/$defs/list" }] } },
    },
    $ref: "#/$defs/list",
  });
  const { value, reads } = deepWithCountedLeaf(200);
  assert.equal(check(value)?.keyword, "anyOf", "the leaf object is neither an integer nor a list");
  assert.ok(reads() <= 2, `${reads()} reads of the deepest value for 200 levels`);
  const equal = compileSchema({ uniqueItems: true, items: { $ref: "#" } });
  assert.deepEqual(equal([[[1, { a: [2, 3] }], 4], [[1.0, { a: [2, 3] }], 4]])?.path, []);
  assert.equal(equal([[[1, { a: [2, 3] }], 4], [[1, { a: [3, 2] }], 4]]), undefined);
});

Deno.test("const and enum of objects or arrays read no more of a value than the longest allowed one", () => {
  const check = compileSchema({
    $defs: {
      n: { anyOf: [{ const: ["end"] }, { enum: [{ a: 1 }, [1, 2]] }, { type: "array", items: { $ref: "#/$defs/n" } }] },
    },
    $ref: "#/$defs/n",
  });
  const readsAt = (depth: number) => {
    const { value, reads } = deepWithCountedLeaf(depth);
    assert.equal(check(value)?.keyword, "anyOf");
    return reads();
  };
  // Only the levels whose JSON is no longer than the longest allowed value reach the leaf.
  assert.equal(readsAt(400), readsAt(200), "the reads grow with the depth");
  assert.ok(readsAt(200) <= 40, `${readsAt(200)} reads of the deepest value for 200 levels`);
  assert.equal(check([["end"], [1, 2], { a: 1.0 }]), undefined);
  assert.equal(check([["end", 1]])?.keyword, "anyOf");
});

Deno.test("required names the missing property in the path", () => {
  const check = compileSchema({ required: ["a", "b"] });
  assert.equal(check({ a: 1, b: null }), undefined);
  const failure = check({ a: 1 });
  assert.deepEqual([failure?.path, failure?.message], [["b"], "is missing (required)"]);
  assert.equal(check([1]), undefined, "required ignores what is not an object");
});

Deno.test("required sees own properties only: __proto__, toString and constructor are names like any other", () => {
  const check = compileSchema({ required: ["__proto__", "toString", "constructor"] });
  assert.deepEqual(check({})?.path, ["__proto__"]);
  assert.equal(check(JSON.parse('{"__proto__": 1, "toString": 2, "constructor": 3}')), undefined);
});

Deno.test("dependentRequired requires names when a property is present", () => {
  const check = compileSchema({ dependentRequired: { card: ["billing"] } });
  assert.equal(check({}), undefined);
  assert.equal(check({ card: 1, billing: 2 }), undefined);
  const failure = check({ card: 1 });
  assert.deepEqual([failure?.path, failure?.message], [
    ["billing"],
    'is required when "card" is present (dependentRequired)',
  ]);
  assert.throws(
    () => compileSchema({ dependentRequired: { a: "b" } }),
    /schema\/dependentRequired\/a must be an array/,
  );
});

Deno.test("minProperties and maxProperties count own properties", () => {
  const check = compileSchema({ minProperties: 1, maxProperties: 2 });
  assert.equal(check({ a: 1 }), undefined);
  assert.equal(check({})?.message, "must have at least 1 properties (minProperties), got 0");
  assert.equal(check({ a: 1, b: 2, c: 3 })?.message, "must have at most 2 properties (maxProperties), got 3");
});

Deno.test("required must list distinct strings", () => {
  assert.throws(() => compileSchema({ required: "a" }), /schema\/required must be an array of distinct property names/);
  assert.throws(() => compileSchema({ required: ["a", "a"] }), /distinct/);
});
