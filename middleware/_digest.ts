import { hex } from "../internal/hex.ts";

const encoder = new TextEncoder();

/** The first record's `prev`: no record came before it. */
export const GENESIS = "0".repeat(64);

/** An HMAC-SHA256 signing key made from raw key bytes. */
export function hmacKey(key: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The HMAC-SHA256 of a text's UTF-8 bytes, as lowercase hex. */
export async function hmacHex(key: CryptoKey, text: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
}
