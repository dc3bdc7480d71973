// What PathJail.listDir takes and returns.

/** Options of {@linkcode PathJail.listDir}. */
export interface ListDirOptions {
  /**
   * The most entries returned: the first ones by name (code-unit order).
   * @default {1000}
   */
  limit?: number;
  /** Stops the listing before it starts; when it has fired by the time a listing stops for `timeMs`, its reason is thrown. */
  signal?: AbortSignal;
  /**
   * How long the listing may take, in milliseconds, counted from the call.
   * A listing is one synchronous step, which no timer can interrupt: it
   * looks at the clock between entries and, past this, stops and is refused
   * (`too-large`) — or, when `signal` fired meanwhile (a tool call's deadline
   * that passed while the step held the thread), throws the signal's reason,
   * which the toolkit answers as that deadline.
   * @default {Infinity}
   */
  timeMs?: number;
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
