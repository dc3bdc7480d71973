// A shallow clone's `shallow` file lists the commits whose parents git does
// not have. git 2.39 inserts its lines one at a time into a sorted table,
// moving every entry after each: 300,000 lines in descending order (12 MB)
// took `git log` 4.7 s, and twice as many would pass the deadline on every
// call. No option or variable turns the file off without breaking a real
// shallow clone, so its size is bounded before git runs.
import { join } from "node:path";
import { PolicyError, quote } from "@forge/toolkit/validate";

/**
 * The largest `shallow` file served: 1 MiB, some 25,000 commits, which git
 * reads in 0.06 s in the worst order. A shallow clone lists one commit per
 * branch tip cut short, a few in practice.
 */
export const MAX_SHALLOW_BYTES = 1024 * 1024;

/**
 * Refuses a repository whose `shallow` file (in its common directory, where
 * git reads it) is larger than {@linkcode MAX_SHALLOW_BYTES}. A missing one
 * is fine; where a link in it leads was checked by `gitLayout`.
 *
 * @param name The repository's configured name, for the message.
 * @param commonDir The common directory's real path.
 * @param maxBytes The largest file allowed.
 * @returns Nothing: it throws instead.
 * @throws {PolicyError} When the file is larger (code `too-large`).
 *
 * @example A repository that is not shallow passes
 * ```ts
 * import { assertShallowBounded } from "./shallow_file.ts";
 *
 * await assertShallowBounded("app", await Deno.makeTempDir());
 * ```
 */
export async function assertShallowBounded(
  name: string,
  commonDir: string,
  maxBytes: number = MAX_SHALLOW_BYTES,
): Promise<void> {
  const info = await Deno.stat(join(commonDir, "shallow")).catch(() => undefined);
  if (info !== undefined && info.size > maxBytes) {
    throw new PolicyError(
      "too-large",
      `Cannot use repo ${quote(name)}: its shallow file is over ${maxBytes} bytes, more than this server lets git ` +
        "read (git takes time that grows with the square of its lines)",
    );
  }
}
