// `git grep --null` output, read exactly: each match is `<name>\0<line>\0<text>\n`,
// where only the text can hold neither NUL nor newline and the name can hold
// anything but NUL. Reading it this way names each file a match came from,
// so the caller can check that file before showing its lines.

/** One matching line. */
export interface GrepMatch {
  /** The file's name as git printed it (`<rev>:<path>` when searching a revision). */
  readonly name: string;
  /** The line number. */
  readonly line: string;
  /** The line's text. */
  readonly text: string;
}

/**
 * Reads `git grep --null --line-number` output into matches. An unfinished
 * last match (output cut at the cap) is left out, so no half-read line is
 * shown without its file being known.
 *
 * @param stdout What git printed.
 * @returns The complete matches, in order.
 *
 * @example Two matches
 * ```ts
 * import { parseGrep } from "./grep_output.ts";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(parseGrep("a.txt\x002\0hello\nb:c\x001\0hi\npart"), [
 *   { name: "a.txt", line: "2", text: "hello" },
 *   { name: "b:c", line: "1", text: "hi" },
 * ]);
 * ```
 */
export function parseGrep(stdout: string): GrepMatch[] {
  const matches: GrepMatch[] = [];
  let at = 0;
  while (at < stdout.length) {
    const nameEnd = stdout.indexOf("\0", at);
    const lineEnd = nameEnd < 0 ? -1 : stdout.indexOf("\0", nameEnd + 1);
    const textEnd = lineEnd < 0 ? -1 : stdout.indexOf("\n", lineEnd + 1);
    if (textEnd < 0) break;
    matches.push({
      name: stdout.slice(at, nameEnd),
      line: stdout.slice(nameEnd + 1, lineEnd),
      text: stdout.slice(lineEnd + 1, textEnd),
    });
    at = textEnd + 1;
  }
  return matches;
}
