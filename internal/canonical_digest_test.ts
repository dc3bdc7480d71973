import assert from "node:assert/strict";
import { canonicalDigest } from "./canonical_digest.ts";
import { canonicalJson } from "./canonical_json.ts";
import { hex } from "./hex.ts";

const enc = new TextEncoder();

Deno.test("canonicalDigest() is the SHA-256 or HMAC-SHA256 of the canonical JSON, a long string included", async () => {
  const value = { b: "x".repeat(200_000) + "€😀", a: [1, { d: null, c: "\n" }] };
  const bytes = enc.encode(canonicalJson(value));
  assert.equal(canonicalDigest(value, "hex"), hex(await crypto.subtle.digest("SHA-256", bytes)));
  const key = enc.encode("a-key-of-at-least-32-bytes-for-this-test");
  const hmac = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  assert.equal(canonicalDigest(value, "hex", key), hex(await crypto.subtle.sign("HMAC", hmac, bytes)));
  assert.match(canonicalDigest(value, "base64url"), /^[A-Za-z0-9_-]{43}$/);
  assert.equal(
    canonicalDigest({ a: 1, b: 2 }, "hex"),
    canonicalDigest({ b: 2, a: 1 }, "hex"),
    "key order does not matter",
  );
});
