// The UTF-8 size of a string without encoding it: what a reply will take on
// the wire, counted before it is written.

/**
 * Whether a UTF-16 code unit opens a surrogate pair: a slice must not end
 * right after one.
 *
 * @example Keep a pair together
 * ```ts
 * import { isHighSurrogate } from "./utf8_length.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(isHighSurrogate("😀".charCodeAt(0)), true);
 * ```
 */
export function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

/**
 * The UTF-8 length of `text` (a lone surrogate counts as the 3 bytes of U+FFFD, as TextEncoder writes it).
 *
 * @example Count a string's bytes
 * ```ts
 * import { utf8Length } from "./utf8_length.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(utf8Length("é😀"), 6);
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) continue;
    if (unit < 0x800) bytes += 1;
    else if (isHighSurrogate(unit) && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
  }
  return bytes;
}
