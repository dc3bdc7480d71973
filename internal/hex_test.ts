import assert from "node:assert/strict";
import { hex } from "./hex.ts";

Deno.test("hex() writes two lowercase digits a byte, leading zeros kept", () => {
  assert.equal(hex(new Uint8Array([0, 1, 0x0f, 0xab, 0xff])), "00010fabff");
  assert.equal(hex(new Uint8Array([0xde, 0xad]).buffer), "dead");
  assert.equal(hex(new Uint8Array()), "");
});
