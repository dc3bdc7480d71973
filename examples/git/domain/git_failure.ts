// What the model reads when git fails. git quotes what it reads deep inside
// `.git` (a bad packed-refs, grafts or commit-graph line, a config value) in
// its warnings and errors, and a repository can make such a file a hard link
// to any file its owner can read: git's own words never reach a reply. A
// failure the server knows gets the server's words, naming only a value the
// caller sent; any other failure is "git failed (ref …)", and git's words go
// to the server's stderr under that ref.
import { type CommandArg, PolicyError, quote } from "@forge/toolkit/validate";

/** What one failed git run printed. */
export interface FailedRun {
  /** stdout: read only for `git commit`, which says there that it has nothing to commit. */
  readonly stdout: string;
  /** stderr. */
  readonly stderr: string;
}

/** One failure the server knows: a line git prints, and the server's words for it. */
interface Known {
  /** Matches one whole line; its first group that matched is what git quoted. */
  readonly line: RegExp;
  /**
   * The server's words.
   * @param value What git quoted, when it is exactly a value the caller sent.
   * @param parts The command line.
   * @param match The line's match.
   */
  readonly say: (value: string | undefined, parts: readonly CommandArg[], match: RegExpExecArray) => string;
}

/**
 * The server's words for a run that stopped at `GIT_ALLOC_LIMIT` (`limit`
 * bytes, as git says it): it would have read an object or file that large
 * whole.
 *
 * @param limit The limit git named, in bytes.
 * @returns The reason.
 */
export function tooLargeWords(limit: number): string {
  const shown = limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`;
  return `git would have to hold more than ${shown} at once, the most this server lets it: a commit or tag ` +
    "message, a tree, an index or a file that large, which git reads whole (a file stored as a delta is read " +
    "whole too), or a diff's table for as many lines";
}

const TOO_LARGE = /: git would have to hold more than [^:]* at once, the most this server lets it: /;

/**
 * Whether `err` is a run that stopped at `GIT_ALLOC_LIMIT`, as `Git.run` words it.
 *
 * @param err What a run threw.
 * @returns True for that failure.
 */
export function tooLargeToRead(err: unknown): boolean {
  return err instanceof PolicyError && err.code === "command" && TOO_LARGE.test(err.message);
}

const path = (value: string | undefined) => value === undefined ? "a path" : `path ${quote(value)}`;

const KNOWN_STDERR: readonly Known[] = [
  {
    line: /^fatal: no such path '?(.*?)'? in (?:HEAD|[0-9a-f]{40}|[0-9a-f]{64})$/,
    say: (value) => `${path(value)} is not a committed file at that revision`,
  },
  {
    line:
      /^fatal: path '(.*)' (?:does not exist|exists on disk, but not) in '[0-9a-f]+'$|^fatal: bad revision '[0-9a-f]{40,64}:(.*)'$/,
    say: (value) => `${path(value)} does not exist at that revision`,
  },
  {
    line:
      /^fatal: pathspec '(.*)' did not match any files$|^error: pathspec '(.*)' did not match any file\(s\) known to git$/,
    say: (value) => `${path(value)} matches no file`,
  },
  {
    line: /^The following paths are ignored by one of your \.gitignore files:$/,
    say: () => "a path is ignored by the repository's ignore rules",
  },
  {
    line: /^fatal: -e option, '.*': /,
    say: (_, parts) => {
      const pattern = parts.find((part) => part.kind === "option" && part.name === "pattern");
      return `${pattern?.kind === "option" ? `pattern ${quote(pattern.text)}` : "the pattern"} ` +
        "is not a valid extended regular expression";
    },
  },
  {
    line: /^fatal: (?:your current branch '.*' does not have any commits yet|no such ref: HEAD)$/,
    say: () => "the repository has no commits yet",
  },
  {
    line: /^fatal: Unable to create '.*[/]index\.lock': File exists\.$/,
    // This server's own gits that take the lock (a commit's add and commit) take turns per work tree, and a stopped
    // one gets SIGTERM, on which git removes its lock: the lock is another program's, or one a killed git left.
    say: () =>
      "the repository's index lock (index.lock in its git directory) is taken: another git runs there, or one " +
      "that was stopped left it behind; if none runs, the operator may remove that file",
  },
  {
    // GIT_ALLOC_LIMIT (hardening.ts): git reads such an object whole, and stopped instead.
    line: /^(?:fatal|error): attempting to allocate \d+ over limit (\d+)$/,
    say: (_value, _parts, match) => tooLargeWords(Number(match[1])),
  },
  {
    // A leftover MERGE_HEAD, CHERRY_PICK_HEAD or rebase state: git commits no named paths until it is finished.
    line: /^fatal: cannot do a partial commit during a (merge|cherry-pick|rebase)\.$/,
    say: (_value, _parts, match) =>
      `the repository is in the middle of a ${match[1]}, and git commits no chosen paths until it is finished or ` +
      "aborted outside this server",
  },
  {
    line: /^fatal: not a git repository: /,
    say: () => "its git directory is not a repository git can open",
  },
];

const KNOWN_COMMIT_STDOUT: readonly Known[] = [
  {
    line: /^(?:nothing to commit|nothing added to commit|no changes added to commit)\b/,
    say: () => "the paths hold no change to commit",
  },
];

/**
 * The server's own words for a git failure it knows (a path that matches
 * nothing, an invalid pattern, nothing to commit, no commits yet, a held
 * index lock, a merge, cherry-pick or rebase in progress, not a
 * repository, an object too large to read whole), or
 * undefined for any other. The words name
 * a value only when git quoted exactly a value the caller sent (an operand,
 * a value, or the path of a `<tree id>:<path>` value); otherwise "a path".
 *
 * Which failure it is comes from lines git prints on their own: git quotes a
 * file's line after a prefix of its own, never as a line by itself, so a
 * quoted file cannot pose as one of these. Either way only these fixed words
 * and the caller's own values can be said.
 *
 * @param run What git printed.
 * @param parts The command line the server built (the caller's values are in it, by name).
 * @returns The reason, to follow `Cannot run git <subcommand> in repo "<name>": `.
 *
 * @example A missing path, in the server's words
 * ```ts
 * import { arg } from "@forge/toolkit/validate";
 * import assert from "node:assert/strict";
 * import { knownFailure } from "./git_failure.ts";
 *
 * const parts = [arg.word("blame"), arg.operands("path", ["nope.txt"])];
 * const run = { stdout: "", stderr: "fatal: no such path 'nope.txt' in HEAD\n" };
 * assert.equal(knownFailure(run, parts), 'path "nope.txt" is not a committed file at that revision');
 * const hostile = { stdout: "", stderr: "fatal: unexpected line in .git/packed-refs: secret\n" };
 * assert.equal(knownFailure(hostile, parts), undefined);
 * ```
 */
export function knownFailure(run: FailedRun, parts: readonly CommandArg[]): string | undefined {
  const commit = parts[0]?.kind === "word" && parts[0].text === "commit";
  // git ends with the line that says why it stopped (advice may follow it): the last known line wins.
  return said(run.stderr, KNOWN_STDERR, parts) ?? (commit ? said(run.stdout, KNOWN_COMMIT_STDOUT, parts) : undefined);
}

function said(text: string, known: readonly Known[], parts: readonly CommandArg[]): string | undefined {
  let found: string | undefined;
  for (const line of text.split("\n")) {
    for (const { line: pattern, say } of known) {
      const match = pattern.exec(line);
      if (match !== null) {
        found = say(callerValue(match.slice(1).find((group) => group !== undefined), parts), parts, match);
      }
    }
  }
  return found;
}

/** `quoted` when it is exactly a value the caller sent, else undefined. */
function callerValue(quoted: string | undefined, parts: readonly CommandArg[]): string | undefined {
  if (quoted === undefined) return undefined;
  for (const part of parts) {
    if (part.kind === "operands" && part.texts.includes(quoted)) return quoted;
    if (part.kind !== "value") continue;
    if (part.text === quoted || part.text === `${part.text.split(":", 1)[0]}:${quoted}`) return quoted;
  }
  return undefined;
}
