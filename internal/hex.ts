// Digests (a config file's SHA-256, an audit record's chain link and HMAC)
// are written as lowercase hex.

/**
 * Lowercase hex of some bytes, two digits a byte.
 *
 * @param bytes The bytes, e.g. a digest from `crypto.subtle`.
 * @returns The hex text, twice as long as `bytes`.
 */
export function hex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return Array.from(view, (b) => b.toString(16).padStart(2, "0")).join("");
}
