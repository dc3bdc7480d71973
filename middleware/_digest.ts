const encoder = new TextEncoder();

/** The first record's `prev`: no record came before it. */
export const GENESIS = "0".repeat(64);

/** Lowercase hex of some bytes. */
function hex(bytes: ArrayBuffer): string {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** The SHA-256 of a text's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

/** An HMAC-SHA256 signing key made from raw key bytes. */
export function hmacKey(key: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** The HMAC-SHA256 of a text's UTF-8 bytes, as lowercase hex. */
export async function hmacHex(key: CryptoKey, text: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(text)));
}
