// What PathJail reads and writes files with.

/** Options of {@linkcode PathJail.readFile} and {@linkcode PathJail.readTextFile}. */
export interface ReadFileOptions {
  /**
   * The most bytes to return.
   * @default {policy.limits.maxReadBytes}
   */
  maxBytes?: number;
  /**
   * Whether a longer file is cut at `maxBytes` instead of refused. A cut
   * file read as text ends with a `[truncated: …]` marker
   * (`PathJail.readTextFile`), or has it apart (`PathJail.readTextCut`).
   * @default {false}
   */
  truncate?: boolean;
  /** Stops the read. */
  signal?: AbortSignal;
}

/** Options of {@linkcode PathJail.writeFile}. */
export interface WriteFileOptions {
  /**
   * Refuse when the file already exists, also when it appears while the
   * write runs: with `atomic`, the new file is linked into place, never
   * renamed over a name.
   * @default {false}
   */
  createNew?: boolean;
  /**
   * Append instead of replacing the content.
   * @default {false}
   */
  append?: boolean;
  /**
   * Replace the file atomically: write a new temporary file beside it, flush
   * it, rename it over the target. Readers see the old content or the new,
   * never a mix; a hard-linked target gets a new inode instead of changing
   * the file's other names. Not with `append`.
   * @default {false}
   */
  atomic?: boolean;
  /**
   * Check everything this write would check — the path, what is at it, the
   * write bits of the file and of its folder, hard links for a write in
   * place — and write nothing: the answer to a permission probe, which must
   * not offer a pattern for a write that would be refused.
   * @default {false}
   */
  dryRun?: boolean;
  /** Stops the write before it starts. */
  signal?: AbortSignal;
}

/** Options of {@linkcode PathJail.resolveRead}. */
export interface ResolveReadOptions {
  /**
   * What the caller is about to do, for the refusals' words: `Cannot list "x": …`.
   * @default {"read"}
   */
  action?: "read" | "list" | "stat";
}
