import type { ConfigFiles } from "./config_includes.ts";
import type { Drivers } from "./hardening.ts";

interface Entry {
  readonly common: string | undefined;
  readonly worktree: string | undefined;
  readonly drivers: Drivers;
}

/**
 * The drivers git found in a repository's config, kept per git directory
 * with the config's bytes they were found in. git was handed those very
 * bytes (`git config --file -`), never the file, so its answer holds for them
 * whatever the file held at any other moment: a call whose config reads the
 * same gets the same drivers without a git run, and a changed byte asks git
 * again.
 *
 * @example Ask git once per config
 * ```ts ignore
 * const drivers = cache.get(gitDir, files) ?? cache.set(gitDir, files, await askGit(files));
 * ```
 */
export class DriverCache {
  readonly #entries = new Map<string, Entry>();

  /**
   * The drivers found for these bytes of a repository's config.
   *
   * @param gitDir The git directory, its key.
   * @param files The config files as read for this call.
   * @returns The drivers, or undefined when they were not found for these bytes.
   */
  get(gitDir: string, files: ConfigFiles): Drivers | undefined {
    const entry = this.#entries.get(gitDir);
    if (entry === undefined || entry.common !== files.common?.text || entry.worktree !== files.worktree?.text) {
      return undefined;
    }
    return entry.drivers;
  }

  /**
   * Keeps the drivers git found in these bytes, in place of any found before.
   *
   * @param gitDir The git directory, its key.
   * @param files The config files git was handed.
   * @param drivers What git found in them.
   * @returns `drivers`.
   */
  set(gitDir: string, files: ConfigFiles, drivers: Drivers): Drivers {
    this.#entries.set(gitDir, { common: files.common?.text, worktree: files.worktree?.text, drivers });
    return drivers;
  }
}
