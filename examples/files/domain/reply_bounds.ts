// The most bytes a reply of read_file or search_files can take, for the tools'
// `maxResultBytes`: the server reserves it while a call runs, so calls that
// run at once cannot together build more replies than its maxInFlightBytes.
// Counted at JSON's worst: a control character is written in six bytes
// (`\u0001`), and seven inside JSON text that is itself a JSON string.

/** What a reply holds beside its text: the JSON-RPC envelope, its id aside (counted with the request). */
const ENVELOPE = 1024;
/** The bytes of a name on Linux (NAME_MAX), and of a path a caller may give (the jail's maxPathLength). */
const NAME_MAX = 255;
const PATH_MAX = 4096;
/** Bytes of a match beside its name and path (keys, type, size). */
const ENTRY = 128;

/**
 * The most bytes a `read_file` reply takes when files are cut at `maxBytes`:
 * each byte at six, plus the truncation marker and the envelope.
 *
 * @example One MiB read
 * ```ts
 * import { readReplyBytes } from "./reply_bounds.ts";
 *
 * console.log(readReplyBytes(1024 * 1024)); // 6 MiB and the envelope
 * ```
 *
 * @param maxBytes The config's `max_bytes`.
 * @returns The bound in bytes.
 */
export function readReplyBytes(maxBytes: number): number {
  return maxBytes * 6 + ENVELOPE;
}

/**
 * The most bytes a `search_files` reply takes under `bounds`: its result is
 * sent twice (`structuredContent`, and as JSON text in `content`), so each
 * byte of a name or path counts 6 + 7; a match's path is the start folder's
 * (at most the jail's 4,096 bytes) and up to `maxDepth` + 1 names.
 *
 * @example The default bounds
 * ```ts
 * import { searchReplyBytes } from "./reply_bounds.ts";
 * import { SEARCH_DEFAULTS } from "./search.ts";
 *
 * console.log(searchReplyBytes(SEARCH_DEFAULTS));
 * ```
 *
 * @param bounds The search's `maxDepth` and `maxResults`.
 * @returns The bound in bytes.
 */
export function searchReplyBytes(bounds: { maxDepth: number; maxResults: number }): number {
  const path = PATH_MAX + (bounds.maxDepth + 1) * (NAME_MAX + 1);
  const match = (NAME_MAX + path) * 13 + ENTRY;
  // The root, the start folder and the pattern (255 characters, up to three bytes each) once each.
  const head = (PATH_MAX + PATH_MAX + NAME_MAX * 3) * 13;
  return bounds.maxResults * match + head + ENVELOPE;
}
