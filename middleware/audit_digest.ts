import { canonicalDigest } from "../internal/canonical_digest.ts";

/**
 * The digest the audit trail writes for some arguments: HMAC-SHA256 of their
 * canonical JSON under `key` (`args_hmac`), or without a key its plain sha256
 * (`args_sha256`). Canonical JSON sorts object keys at every level (UTF-16
 * code-unit order), has no whitespace, and writes strings and numbers as
 * `JSON.stringify` does: RFC 8785 for any JSON a client can send. Use it to
 * test whether a recorded call carried the arguments you suspect.
 *
 * @param args The suspected arguments, as the client sent them.
 * @param key The trail's key (the value of FORGE_AUDIT_KEY or the key file's text without its newline).
 * @returns The lowercase hex digest.
 *
 * @example Did call 7 write notes/todo.md?
 * ```ts
 * import { auditDigest } from "@forge/toolkit/middleware";
 * import assert from "node:assert/strict";
 *
 * const key = "a-key-of-at-least-32-bytes-for-the-example";
 * const digest = await auditDigest({ path: "notes/todo.md", content: "x" }, key);
 * assert.equal(digest, await auditDigest({ content: "x", path: "notes/todo.md" }, key));
 * ```
 */
export function auditDigest(args: unknown, key?: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const bytes = typeof key === "string" ? new TextEncoder().encode(key) : key;
  return Promise.resolve(canonicalDigest(args, "hex", bytes));
}
