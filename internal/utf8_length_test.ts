import assert from "node:assert/strict";
import { isHighSurrogate, utf8Length } from "./utf8_length.ts";

Deno.test("utf8Length() counts what TextEncoder writes, lone surrogates as U+FFFD", () => {
  const encoder = new TextEncoder();
  for (const text of ["", "ascii", "é", "€", "😀", "a😀é€z", "\ud800", "x\udc00y", "\ud83d"]) {
    assert.equal(utf8Length(text), encoder.encode(text).length, JSON.stringify(text));
  }
});

Deno.test("isHighSurrogate() is true for the first unit of a pair only", () => {
  const pair = "😀";
  assert.equal(isHighSurrogate(pair.charCodeAt(0)), true);
  assert.equal(isHighSurrogate(pair.charCodeAt(1)), false);
  assert.equal(isHighSurrogate("a".charCodeAt(0)), false);
});
