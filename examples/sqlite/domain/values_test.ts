import assert from "node:assert/strict";
import { PolicyError } from "@forge/toolkit/validate";
import { MAX_PARAMS, paramsToJson, toJsonValue, toSqlParams } from "./values.ts";

Deno.test("toJsonValue() keeps safe integers as numbers and turns the rest into decimal strings", () => {
  assert.equal(toJsonValue(42n), 42);
  assert.equal(toJsonValue(BigInt(Number.MAX_SAFE_INTEGER)), Number.MAX_SAFE_INTEGER);
  assert.equal(toJsonValue(BigInt(Number.MIN_SAFE_INTEGER)), Number.MIN_SAFE_INTEGER);
  assert.equal(toJsonValue(9007199254740993n), "9007199254740993");
  assert.equal(toJsonValue(-9223372036854775808n), "-9223372036854775808");
});

Deno.test("toJsonValue() marks blobs as base64, and spells infinite floats out", () => {
  assert.deepEqual(toJsonValue(new Uint8Array([0, 255, 16])), { $base64: "AP8Q" });
  assert.deepEqual(toJsonValue(new Uint8Array(0)), { $base64: "" });
  assert.equal(toJsonValue(Infinity), "Infinity");
  assert.equal(toJsonValue(-Infinity), "-Infinity");
  assert.equal(toJsonValue(1.5), 1.5);
  assert.equal(toJsonValue(null), null);
  assert.equal(toJsonValue("text"), "text");
});

Deno.test("toJsonValue() encodes a large blob without overflowing the call stack", () => {
  const bytes = new Uint8Array(300_000).fill(7);
  const { $base64 } = toJsonValue(bytes) as { $base64: string };
  assert.equal(atob($base64).length, 300_000);
});

Deno.test("toSqlParams() binds arrays in order and objects by name, with or without the prefix", () => {
  assert.deepEqual(toSqlParams(undefined), []);
  assert.deepEqual(toSqlParams(null), []);
  assert.deepEqual(toSqlParams(["a", 1, 1.5, null, true, false]), ["a", 1, 1.5, null, 1, 0]);
  assert.deepEqual({ ...toSqlParams({ ":a": 1, "@b": "x", $c: null, d: true }) }, { a: 1, b: "x", c: null, d: 1 });
  assert.deepEqual(toSqlParams([{ $base64: "AP8=" }]), [new Uint8Array([0, 255])]);
});

Deno.test("toSqlParams() refuses what cannot be bound, naming the argument", () => {
  const bad: unknown[] = [
    "a string",
    42,
    [[1]],
    [{ a: 1 }],
    [{ $base64: "%%%" }],
    [{ $base64: "AA==", extra: 1 }],
    [Infinity],
    [NaN],
    { "bad name": 1 },
    { "1x": 1 },
    new Array(MAX_PARAMS + 1).fill(1),
  ];
  for (const params of bad) {
    assert.throws(() => toSqlParams(params), (err: Error) => {
      assert.ok(err instanceof PolicyError);
      assert.match(err.message, /^Invalid argument "params/);
      return true;
    });
  }
});

Deno.test("paramsToJson() gives back what toSqlParams() reads: blobs as base64, names without their prefix", () => {
  const params = toSqlParams({ ":a": "x", b: { $base64: "AP8=" }, $c: true });
  assert.deepEqual(paramsToJson(params), { a: "x", b: { $base64: "AP8=" }, c: 1 });
  assert.deepEqual(toSqlParams(paramsToJson(params)), params);
  assert.deepEqual(paramsToJson([1, null, new Uint8Array([0, 255])]), [1, null, { $base64: "AP8=" }]);
  assert.deepEqual(paramsToJson([42n]), [42]);
  assert.throws(() => paramsToJson([2n ** 60n]), /Invalid argument "params": a bigint is out of range/);
});
