// Commands the toolkit prints for a person to paste (`--print-permissions`,
// the compile task) must survive a POSIX shell unchanged.

// Characters no POSIX shell treats specially, so a word made only of them needs no quotes.
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/**
 * One word for a POSIX shell: unchanged when it holds only characters the
 * shell does not interpret, else in single quotes (an inner `'` written as
 * `'\''`).
 *
 * @param word The word, e.g. a permission flag.
 * @returns The word as the shell must read it.
 *
 * @example Print flags a person pastes into a shell
 * ```ts
 * import { shellQuote } from "@forge/toolkit/permissions";
 * import assert from "node:assert/strict";
 *
 * assert.equal(shellQuote("--allow-read=/srv/data"), "--allow-read=/srv/data");
 * assert.equal(shellQuote("--allow-read=/srv/my notes"), "'--allow-read=/srv/my notes'");
 * ```
 */
export function shellQuote(word: string): string {
  return PLAIN.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
