// What PathJail.listDir takes and returns.

/** Options of {@linkcode PathJail.listDir}. */
export interface ListDirOptions {
  /**
   * The most entries returned: the first ones by name (code-unit order).
   * @default {1000}
   */
  limit?: number;
}

/** One entry of {@linkcode PathJail.listDir}. */
export interface DirEntryInfo {
  /** The name inside the folder. */
  name: string;
  /** What it is; a symbolic link is `symlink`, whatever it points at, and is never followed. */
  type: "file" | "dir" | "symlink" | "other";
  /** The size in bytes, for a regular file (absent for one with several hard links unless they are allowed). */
  size?: number;
}

/** What {@linkcode PathJail.listDir} returns. */
export interface DirListing {
  /** The first `limit` visible entries, by name. */
  entries: DirEntryInfo[];
  /** Whether visible entries past the first `limit` were left out. */
  truncated: boolean;
  /**
   * How many entries were left out because no caller's path can name them:
   * names holding a control character, or bytes that are not UTF-8. Said
   * rather than dropped in silence, so a listing never looks complete when it is not.
   */
  unlisted: number;
}
