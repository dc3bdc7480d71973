// What one git command line can carry. Linux refuses to start a program with
// an argument over 128 KiB (its terminating NUL included), or whose arguments
// and environment pass a quarter of its stack limit (2 MiB under the usual
// 8 MiB): a value past these would fail the run as an internal error, so the
// server refuses it first, in its own words.

/**
 * The most UTF-8 bytes one argument may hold.
 *
 * @example A commit message's limit
 * ```ts
 * import { MAX_ARGUMENT_BYTES } from "./argument_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MAX_ARGUMENT_BYTES, 131_071);
 * ```
 */
export const MAX_ARGUMENT_BYTES = 128 * 1024 - 1;

/**
 * The most UTF-8 bytes of paths one git run takes together: a quarter of
 * the 2 MiB, leaving room for the rest of the command and the environment.
 *
 * @example
 * ```ts
 * import { MAX_PATHS_BYTES } from "./argument_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(MAX_PATHS_BYTES, 512 * 1024);
 * ```
 */
export const MAX_PATHS_BYTES = 512 * 1024;

/**
 * The UTF-8 bytes `texts` take as arguments, together (their terminating
 * NULs not counted).
 *
 * @param texts Arguments.
 * @returns Their length in UTF-8.
 *
 * @example
 * ```ts
 * import { argumentBytes } from "./argument_bytes.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(argumentBytes(["é", "ab"]), 4);
 * ```
 */
export function argumentBytes(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += encoder.encode(text).length;
  return bytes;
}

const encoder = new TextEncoder();
