// The most bytes a reply of each git tool can take, for the tools'
// `maxResultBytes`: the server reserves it while a call runs, so calls that
// run at once cannot together build more replies than its maxInFlightBytes.
// git's output is cut at `max_output_bytes`; each of its bytes decodes to one
// character at most, which the reply's JSON writes in six bytes at worst
// (`\u0001`). Tools other than git_commit answer text alone, sent once.
import { MAX_PATHS_BYTES } from "./argument_bytes.ts";
import { MAX_COMMIT_PATHS } from "./manager.ts";
import { MAX_REVISION } from "./revision.ts";

/**
 * What a reply holds beside git's output: the JSON-RPC envelope (its id aside), the truncation marker, the
 * renames-not-looked-for line, or an error (its quoted values are cut at 64 characters).
 */
const ENVELOPE = 4096;
/** Bytes a character of git's output takes in the reply. */
const ESCAPED = 6;
/**
 * Bytes a character takes written as JSON inside the reply's JSON: six (`\u0001`), and the backslash escaped once
 * more. A left-out line (`Not diffed: "<path>" is over …`) writes its path so, at seven bytes a byte of the listing
 * that named it; the line's fixed words take fewer bytes than the listing's line (`:<modes> <ids> <status>\0`) they
 * stand for. So does git_commit's result in its JSON text.
 */
const NOTED = 7;
/**
 * What a caller's revision of `length` characters adds to each `git grep` line, per byte of git's output: git
 * writes `<id>:<path>\0<line>\0<text>\n` (at least 46 bytes with a 40-hex id), the tool shows
 * `<revision>:<path>:<line>:<text>\n` with the revision (three bytes a character at most, against the 44 bytes of
 * id and separators) in place of the id. Nothing up to 86 characters; twelve a byte at the longest revision (256).
 */
function grepRevision(length: number): number {
  return Math.max(0, Math.ceil((length * 3 + 3 + 2 - 44 * ESCAPED) / 46));
}

/** The git tools. */
export type GitTool = "git_status" | "git_log" | "git_show" | "git_diff" | "git_grep" | "git_blame" | "git_commit";

/**
 * The most bytes a reply of `tool` takes when git's output is cut at
 * `maxOutputBytes` (the config's `max_output_bytes`, per stream of one run):
 * - `git_status`, `git_log`, `git_blame`: the output at six bytes a byte;
 * - `git_show`, `git_diff`: that, and the left-out lines naming big files
 *   of the run's listing (itself at most `maxOutputBytes`), seven a byte;
 * - `git_grep`: the output at six bytes a byte plus what the call's
 *   revision (`args.ref`, as sent; the longest a tool takes when it is no
 *   string) adds to each line, and the left-out lines of its listing;
 * - `git_commit`: its result sent twice (`structuredContent` and JSON text),
 *   the paths (at most 512 KiB of UTF-8) at 6 + 7 bytes a byte.
 *
 * @example At the default max_output_bytes
 * ```ts
 * import { replyBytes } from "./reply_bounds.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(4 * replyBytes("git_diff", 1024 * 1024) < 64 * 1024 * 1024);
 * ```
 *
 * @param tool The tool.
 * @param maxOutputBytes The config's `max_output_bytes`.
 * @param args The call's arguments as sent (not yet checked): `git_grep` reads its `ref`.
 * @returns The bound in bytes.
 */
export function replyBytes(tool: GitTool, maxOutputBytes: number, args: Record<string, unknown> = {}): number {
  switch (tool) {
    case "git_show":
    case "git_diff":
      return maxOutputBytes * (ESCAPED + NOTED) + ENVELOPE;
    case "git_grep": {
      const ref = args.ref;
      const length = ref === undefined
        ? 0
        : typeof ref === "string"
        ? Math.min(ref.length, MAX_REVISION)
        : MAX_REVISION;
      return maxOutputBytes * (ESCAPED + grepRevision(length) + NOTED) + ENVELOPE;
    }
    case "git_commit":
      // Each path in quotes and a comma, in both copies; the repository's name (64) and the commit's id (64) too.
      return MAX_PATHS_BYTES * (ESCAPED + NOTED) + (MAX_COMMIT_PATHS + 2) * 8 + 2 * 64 * 2 + ENVELOPE;
    default:
      return maxOutputBytes * ESCAPED + ENVELOPE;
  }
}
