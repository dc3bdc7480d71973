// The most bytes a reply of each sqlite tool can take, for the tools'
// `maxResultBytes`: the server reserves it while a call runs, so calls that
// run at once cannot together build more replies than its maxInFlightBytes.
// Every result is sent twice: as `structuredContent`, and as its JSON text in
// `content`, where each byte of that JSON takes two at most (`"` is `\"`).
import { DEFAULT_LIMITS } from "@forge/toolkit/validate";
import { MAX_CATALOG_ROWS, MAX_DESCRIPTION_BYTES } from "./catalog.ts";

/**
 * What a reply holds beside its result's bounded part: the JSON-RPC envelope (its id aside), the result's own keys
 * and counts, or an error (SQLite's message is cut at 200 characters).
 */
const ENVELOPE = 4096;
/** Bytes a character from the database takes in a listing's reply: six (`\u0001`), then seven in the JSON text. */
const TWICE_ESCAPED = 6 + 7;
/** What one listed table takes beside its name, in both copies: `{"name":"","type":"table"},` and its text. */
const LISTED = 64;

/**
 * The most bytes a reply takes whose result's JSON is cut at `maxBytes` (as
 * `run_query` cuts its columns and rows, and `describe_table` refuses a
 * description past them): the JSON once, then its text at two bytes a byte.
 *
 * @example The default bound of a query
 * ```ts
 * import { jsonReplyBytes } from "./reply_bounds.ts";
 *
 * console.log(jsonReplyBytes(1024 * 1024)); // 3 MiB and the envelope
 * ```
 *
 * @param maxBytes The most bytes of the result's JSON.
 * @returns The bound in bytes.
 */
export function jsonReplyBytes(maxBytes: number): number {
  return maxBytes * 3 + ENVELOPE;
}

/**
 * The most bytes a `list_tables` reply takes: its names are read against a
 * budget of `maxBytes` characters (plus one a column), each at thirteen
 * bytes, and at most `maxRows` tables.
 *
 * @example The default bound
 * ```ts
 * import { listReplyBytes } from "./reply_bounds.ts";
 *
 * console.log(listReplyBytes(1024 * 1024, 10_000)); // some 13.6 MiB
 * ```
 *
 * @param maxBytes The read's budget in characters.
 * @param maxRows The most tables listed.
 * @returns The bound in bytes.
 */
export function listReplyBytes(maxBytes: number, maxRows: number): number {
  return maxBytes * TWICE_ESCAPED + maxRows * LISTED + ENVELOPE;
}

/**
 * The `maxResultBytes` of each tool, from the caps the server applies
 * (`DEFAULT_LIMITS.maxResultBytes` for rows, `MAX_DESCRIPTION_BYTES`,
 * `MAX_CATALOG_ROWS`); `execute` answers two numbers.
 *
 * @example Four calls of any tool at once within the default maxInFlightBytes
 * ```ts
 * import { REPLY_BYTES } from "./reply_bounds.ts";
 * import assert from "node:assert/strict";
 *
 * for (const bytes of Object.values(REPLY_BYTES)) assert.ok(4 * bytes < 64 * 1024 * 1024);
 * ```
 */
export const REPLY_BYTES: Readonly<Record<"list_tables" | "describe_table" | "run_query" | "execute", number>> = Object
  .freeze({
    list_tables: listReplyBytes(DEFAULT_LIMITS.maxResultBytes, MAX_CATALOG_ROWS),
    describe_table: jsonReplyBytes(MAX_DESCRIPTION_BYTES),
    run_query: jsonReplyBytes(DEFAULT_LIMITS.maxResultBytes),
    execute: ENVELOPE,
  });
