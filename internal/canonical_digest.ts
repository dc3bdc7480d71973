// The digest of a value's canonical JSON, for the audit trail (arguments) and
// the 2026-07-28 requestState (arguments and questions). The JSON is fed to
// the hash a piece at a time, so digesting a 60 MiB argument costs no copy of
// it: JSON.stringify, joining and encoding the whole text would cost three.

import { createHash, createHmac } from "node:crypto";
import { writeCanonical } from "./canonical_json.ts";

/**
 * SHA-256 of `value`'s canonical JSON (UTF-8), or HMAC-SHA256 under `key`
 * when one is given, in `encoding`.
 *
 * @param value A JSON value (as parsed); see `canonicalJson` for the text digested.
 * @param encoding `hex` (lowercase) or `base64url` (no padding).
 * @param key The HMAC key, when the digest must be keyed.
 * @returns The digest.
 * @throws {TypeError} When the value refers to itself.
 */
export function canonicalDigest(value: unknown, encoding: "hex" | "base64url", key?: Uint8Array): string {
  const hash = key === undefined ? createHash("sha256") : createHmac("sha256", key);
  writeCanonical(value, (piece) => hash.update(piece, "utf8"));
  return hash.digest(encoding);
}
