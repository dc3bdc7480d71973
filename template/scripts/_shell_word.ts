// The commands the tasks print must read back unchanged in a POSIX shell.

/**
 * A word as the printed commands show it: bare when no POSIX shell treats a character of it specially, else in single
 * quotes (an inner `'` written as `'\''`).
 *
 * @param word A flag, a path.
 * @returns The word as a shell must read it.
 *
 * @example Quote a flag whose path holds a space
 * ```ts
 * import { shellWord } from "./_shell_word.ts";
 * import assert from "node:assert/strict";
 *
 * assert.equal(shellWord("--allow-read=/srv/my notes"), "'--allow-read=/srv/my notes'");
 * ```
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
