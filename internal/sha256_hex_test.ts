import assert from "node:assert/strict";
import { sha256Hex } from "./sha256_hex.ts";

const EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
const ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

Deno.test("sha256Hex() returns the lowercase hex digest of bytes", async () => {
  assert.equal(await sha256Hex(new Uint8Array()), EMPTY);
  assert.equal(await sha256Hex(new TextEncoder().encode("abc")), ABC);
});

Deno.test("sha256Hex() of a text digests its UTF-8 bytes", async () => {
  assert.equal(await sha256Hex(""), EMPTY);
  assert.equal(await sha256Hex("abc"), ABC);
  assert.equal(await sha256Hex("é"), await sha256Hex(new Uint8Array([0xc3, 0xa9])));
});
