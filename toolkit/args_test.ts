import assert from "node:assert/strict";
import {
  ArgumentError,
  getBool,
  getInt,
  getIntArray,
  getString,
  getStringArray,
  getStringMap,
  requestArgs,
  requireString,
} from "@forge/toolkit";

const rejects = (fn: () => unknown, pattern: RegExp) =>
  assert.throws(fn, (err: unknown) => err instanceof ArgumentError && pattern.test(err.message));

Deno.test("requestArgs() never returns null", () => {
  assert.deepEqual(requestArgs({ arguments: undefined as never }), {});
  assert.deepEqual(requestArgs({ arguments: null as never }), {});
  assert.deepEqual(requestArgs({ arguments: [1] as never }), {});
  assert.deepEqual(requestArgs({ arguments: { a: 1 } }), { a: 1 });
});

Deno.test("getString() converts scalars with String() and refuses objects", () => {
  assert.equal(getString({ s: "x" }, "s"), "x");
  assert.equal(getString({ n: 1.5 }, "n"), "1.5");
  assert.equal(getString({ b: false }, "b"), "false");
  assert.equal(getString({}, "s", "dflt"), "dflt");
  assert.equal(getString({ s: null }, "s", "dflt"), "dflt");
  rejects(() => getString({ o: {} }, "o"), /Invalid argument "o": must be a string/);
  rejects(() => getString({ a: [] }, "a"), /must be a string/);
});

Deno.test("getString() ignores inherited keys such as __proto__ and constructor", () => {
  const args = JSON.parse('{"__proto__":"x"}');
  assert.equal(getString(args, "__proto__"), "x");
  assert.equal(getString({}, "constructor", "none"), "none");
  assert.equal(getString({}, "toString", "none"), "none");
});

Deno.test("requireString() refuses absent, empty and null values, naming the argument", () => {
  assert.equal(requireString({ p: "a" }, "p"), "a");
  for (const args of [{}, { p: "" }, { p: null }]) rejects(() => requireString(args, "p"), /"p": is required/);
});

Deno.test("getInt() takes integers and numeric strings, refuses fractions, NaN and unsafe values", () => {
  assert.equal(getInt({ n: 5 }, "n"), 5);
  assert.equal(getInt({ n: "-12" }, "n"), -12);
  assert.equal(getInt({ n: " 7 " }, "n"), 7);
  assert.equal(getInt({ n: 1e3 }, "n"), 1000);
  assert.equal(getInt({}, "n", 9), 9);
  for (const bad of [1.5, "1.5", "abc", "", Number.NaN, Infinity, true, [], {}, "1e3"]) {
    rejects(() => getInt({ n: bad }, "n"), /"n": must be an integer/);
  }
  rejects(() => getInt({ n: 2 ** 60 }, "n"), /must be between/);
  rejects(() => getInt({ n: "99999999999999999999" }, "n"), /must be between/);
});

Deno.test("getInt() cuts a hostile megabyte string short in its message", () => {
  try {
    getInt({ n: "x".repeat(1_000_000) }, "n");
    assert.fail("should throw");
  } catch (err) {
    assert.ok((err as Error).message.length < 200);
  }
});

Deno.test("getBool() takes booleans and their strings only", () => {
  assert.equal(getBool({ b: true }, "b"), true);
  assert.equal(getBool({ b: "false" }, "b", true), false);
  assert.equal(getBool({}, "b", true), true);
  for (const bad of [1, 0, "yes", "TRUE", {}]) rejects(() => getBool({ b: bad }, "b"), /must be a boolean/);
});

Deno.test("getStringArray() needs a non-empty array of strings", () => {
  assert.deepEqual(getStringArray({ a: ["x", "y"] }, "a"), ["x", "y"]);
  assert.deepEqual(getStringArray({}, "a"), []);
  rejects(() => getStringArray({}, "a", { required: true }), /is required/);
  rejects(() => getStringArray({ a: [] }, "a"), /non-empty/);
  rejects(() => getStringArray({ a: "x" }, "a"), /must be an array/);
  rejects(() => getStringArray({ a: ["x", 1] }, "a"), /element 1 must be a string/);
  rejects(() => getStringArray({ a: ["x", "y", "z"] }, "a", { maxItems: 2 }), /at most 2/);
});

Deno.test("getIntArray() needs a non-empty array of integers", () => {
  assert.deepEqual(getIntArray({ a: [1, "2"] }, "a"), [1, 2]);
  rejects(() => getIntArray({ a: [1, 2.5] }, "a"), /"a\[1\]": must be an integer/);
  rejects(() => getIntArray({ a: [] }, "a"), /non-empty/);
});

Deno.test("getStringMap() returns a prototype-free map of strings", () => {
  const map = getStringMap({ h: JSON.parse('{"__proto__":"p","accept":"text/plain"}') }, "h");
  assert.equal(Object.getPrototypeOf(map), null);
  assert.equal(map.__proto__, "p");
  assert.equal(map.accept, "text/plain");
  assert.deepEqual({ ...getStringMap({}, "h") }, {});
  rejects(() => getStringMap({ h: { a: 1 } }, "h"), /value of "a" must be a string/);
  rejects(() => getStringMap({ h: ["a"] }, "h"), /must be an object of strings/);
});
