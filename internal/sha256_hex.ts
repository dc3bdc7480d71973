import { hex } from "./hex.ts";

const encoder = new TextEncoder();

/**
 * The SHA-256 of some bytes, or of a text's UTF-8 bytes, as lowercase hex.
 *
 * @param data The bytes, or a text.
 * @returns 64 lowercase hex digits.
 */
export async function sha256Hex(data: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}
