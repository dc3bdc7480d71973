// Test-only pauses inside one reload, so that a test lands a racing write or
// rename at an exact step instead of hoping a timer does. Internal: not
// exported from mod.ts, and a loader without an entry runs as before.

/** Where a reload waits for a test, in the order it passes them. */
export interface RaceHooks {
  /** After the path is stat'ed, before the safety check. */
  afterStamp?: () => void | Promise<void>;
  /** After the safety check, before the file is opened. */
  afterCheck?: () => void | Promise<void>;
  /** After each chunk read from the opened file (64 KiB each). */
  afterChunk?: () => void | Promise<void>;
  /** After the file is read, before its content is hashed and its stamp kept. */
  afterRead?: () => void | Promise<void>;
}

/** The hooks of a loader, set by a test: `raceHooks.set(loader, { … })`. */
export const raceHooks: WeakMap<object, RaceHooks> = new WeakMap();
