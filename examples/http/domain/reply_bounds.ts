// The most bytes a fetch_url reply can take, for the tool's `maxResultBytes`:
// the server reserves it while a call runs, so calls that run at once cannot
// together build more replies than its maxInFlightBytes. The result is sent
// twice (`structuredContent`, and as JSON text in `content`), so a character
// from the server counts at JSON's worst in both: six bytes (`\u0001`), then
// seven inside the text, thirteen in all.
import { DEFAULT_LIMITS } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";

/** What a reply holds beside its strings: the JSON-RPC envelope (its id aside), the keys, status and flags. */
const ENVELOPE = 1024;
/** How far past its cap a cut may run to keep a credential's placeholder whole, in UTF-16 units. */
const PLACEHOLDER = 1024;
/** Bytes a character from outside takes in the reply: in `structuredContent` and in the JSON text. */
const TWICE_ESCAPED = 6 + 7;
/** The most of `Content-Type` and of each redirect hop a result shows (the fetcher's cuts), in UTF-16 units. */
const SHOWN_TYPE = 256 + 1;
const SHOWN_HOP = 1024 + 1;
/**
 * How much longer the filter can make a URL: each credential of three characters or more shown as a placeholder
 * (`[hidden credential]`, or the `${NAME}` of an environment value).
 */
const URL_GROWTH = 16;

/**
 * The most bytes a `fetch_url` reply takes under `config`: the body cut at
 * `max_bytes` characters (each byte decodes to one at most) or past it to
 * the end of a placeholder, the `Content-Type` and every redirect hop cut
 * as the fetcher cuts them, each at thirteen bytes a character, and the
 * final URL (at most the policy's `maxUrlLength`, parsed, so printable ASCII
 * that JSON writes as is) with its placeholders, sent twice.
 *
 * @example The default config
 * ```ts
 * import { fetchReplyBytes } from "./reply_bounds.ts";
 * import { ConfigSchema } from "./config.ts";
 * import assert from "node:assert/strict";
 *
 * // Four calls at once within the default maxInFlightBytes (64 MiB).
 * assert.ok(4 * fetchReplyBytes(ConfigSchema.parse({})) < 64 * 1024 * 1024);
 * ```
 *
 * @param config The config's `max_bytes` and `max_redirects`.
 * @returns The bound in bytes.
 */
export function fetchReplyBytes(config: Pick<Config, "max_bytes" | "max_redirects">): number {
  const body = (config.max_bytes + PLACEHOLDER) * TWICE_ESCAPED;
  const type = (SHOWN_TYPE + PLACEHOLDER) * TWICE_ESCAPED;
  const hops = config.max_redirects * (SHOWN_HOP + PLACEHOLDER) * TWICE_ESCAPED;
  const url = DEFAULT_LIMITS.maxUrlLength * URL_GROWTH * 2;
  return body + type + hops + url + ENVELOPE;
}
