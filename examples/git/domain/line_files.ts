// Files of the git data that git reads by itself, a line at a time, into a
// table of its own, with no option or variable that turns them off without
// breaking what they are for. Their size is bounded before git runs.
//
// A shallow clone's `shallow` file lists the commits whose parents git does
// not have: git 2.39 inserts its lines one at a time into a sorted table,
// moving every entry after each, so 300,000 lines in descending order (12 MB)
// took `git log` 4.7 s, and twice as many would pass the deadline on every
// call. `info/exclude` and `info/attributes` hold patterns: git keeps a
// structure per line and tries paths against each (every untracked path for
// the one, every path whose attributes it looks up for the other), so it
// spends memory in proportion to their size, and time to their size times
// the paths. One that is not a regular file is refused too: git opens a FIFO
// there and waits for a writer, and a call would only end at its deadline.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";

/**
 * The largest such file served: 1 MiB. A `shallow` file of that size lists
 * some 25,000 commits (git reads it in 0.06 s in the worst order), where a
 * shallow clone lists one per branch tip cut short; an `info/exclude` or
 * `info/attributes` file of that size holds some 60,000 to 90,000 patterns,
 * where one in use holds a few.
 */
export const MAX_LINE_FILE_BYTES = 1024 * 1024;

// Each file, where git reads it in the common directory, and what its lines cost git.
const LINE_FILES: readonly { path: string; cost: string }[] = [
  { path: "shallow", cost: "git takes time that grows with the square of its lines" },
  { path: "info/exclude", cost: "git holds each pattern and tries every untracked path against them all" },
  { path: "info/attributes", cost: "git holds each pattern and tries every path it looks up against them all" },
];

/**
 * Refuses a repository whose `shallow`, `info/exclude` or `info/attributes`
 * file (in its common directory, where git reads them) is larger than
 * `maxBytes`, or is not a regular file (a FIFO, socket, device or folder;
 * a link is followed: where it leads was checked by `gitLayout`). A missing
 * one is fine.
 *
 * @param name The repository's configured name, for the message.
 * @param commonDir The common directory's real path.
 * @param maxBytes The largest file allowed.
 * @returns Nothing: it throws instead.
 * @throws {PolicyError} When a file is larger (code `too-large`) or not a regular file (`not-a-file`).
 *
 * @example A repository without any of them passes
 * ```ts
 * import { assertLineFilesBounded } from "./line_files.ts";
 *
 * await assertLineFilesBounded("app", await Deno.makeTempDir());
 * ```
 */
export async function assertLineFilesBounded(
  name: string,
  commonDir: string,
  maxBytes: number = MAX_LINE_FILE_BYTES,
): Promise<void> {
  for (const { path, cost } of LINE_FILES) {
    const info = await Deno.stat(join(commonDir, path)).catch(() => undefined);
    if (info === undefined) continue;
    if (!info.isFile) {
      // A FIFO has size 0: git would open it and wait for a writer until the call's deadline.
      throw new PolicyError(
        "not-a-file",
        `Cannot use repo ${quote(name)}: its ${path} is not a regular file, and git reads it on every call`,
      );
    }
    if (info.size > maxBytes) {
      throw new PolicyError(
        "too-large",
        `Cannot use repo ${quote(name)}: its ${path} file is over ${maxBytes} bytes, more than this server lets git ` +
          `read (${cost})`,
      );
    }
  }
}
