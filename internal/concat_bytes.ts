// Chunks read one at a time, joined once their total is known: the one copy
// the stream readers, the config reader, the audit file, the stderr queue and
// the test package's readers and attack lines share.

/**
 * The bytes of `parts`, one after another, in a new array.
 *
 * @example Join two reads
 * ```ts
 * import { concatBytes } from "./concat_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(concatBytes([new Uint8Array([1, 2]), new Uint8Array([3])]), new Uint8Array([1, 2, 3]));
 * ```
 */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
