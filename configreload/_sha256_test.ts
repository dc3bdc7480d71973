import assert from "node:assert/strict";
import { sha256 } from "./_sha256.ts";

Deno.test("sha256() returns the lowercase hex digest", async () => {
  assert.equal(await sha256(new Uint8Array()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  assert.equal(
    await sha256(new TextEncoder().encode("abc")),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
});
