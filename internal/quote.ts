// Shared by every folder that writes a message holding a caller's value, and
// public through `@forge/toolkit/validate` for servers' own refusals.

/**
 * Quotes a value for a message: JSON-quoted, so control characters and quotes
 * are escaped (and bidirectional, zero-width and separator characters too, as
 * `\u` escapes: they would change how the message reads), and cut to `max`
 * characters with a trailing `…`, since hostile input can be megabytes. A `…`
 * of the value itself is written `\u2026`, so the only `…` a quote holds is
 * its cut: a redactor that hides a secret's start before a cut cannot be
 * shown a cut the value made up.
 *
 * @param value The value to show; anything but a string is shown as `String(value)`.
 * @param max How many characters of it to keep.
 * @returns The quoted text, at most `max` characters of the value plus the quotes and `…`.
 *
 * @example Quote a caller's value in a refusal
 * ```ts
 * import { quote } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 *
 * assert.equal(quote('notes/"a".md'), '"notes/\\"a\\".md"');
 * assert.equal(quote("x".repeat(1_000_000), 8), '"xxxxxxxx…"');
 * assert.equal(`Cannot read ${quote("../etc/passwd")}: it leaves the root`, 'Cannot read "../etc/passwd": it leaves the root');
 * ```
 */
export function quote(value: unknown, max: number = 64): string {
  const text = typeof value === "string" ? value : String(value);
  const quoted = JSON.stringify(text.length <= max ? text : text.slice(0, max)).replace(INVISIBLE, escapeUnit);
  return text.length <= max ? quoted : `${quoted.slice(0, -1)}…"`;
}

// Characters JSON leaves as they are that change how the text around them is shown: bidirectional
// overrides and isolates (a refusal could read backwards), zero-width and line/paragraph separators; and the
// cut mark, which only a cut may write.
const INVISIBLE = /[\u200B-\u200F\u2026\u2028-\u202E\u2060-\u2069\uFEFF]/g;

/** `char` (one UTF-16 unit) as a JSON `\u` escape: how a message writes a character it must not show raw. */
export function escapeUnit(char: string): string {
  return `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;
}
