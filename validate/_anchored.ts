// Anchoring a file operation on a folder, for jails without a descriptor
// anchor (see _descriptor_anchor.ts, which holds folders as descriptors).
// Deno has no openat: here a checked folder cannot be held as a handle. Each step uses the folder by its real
// path, checked to resolve to itself before the step and between its calls
// (Deno.realPathSync), so a folder swapped for a link on the way is seen and
// the step refused; callers compare identities (device and inode) across
// several calls, so a swap must redirect each of them alike to pass. The whole
// step is synchronous: no other code of this process runs in between.
//
// The working directory is never moved. Deno.chdir plus relative names looks
// like an anchor, but under scoped permissions Deno 2.9.6 turns a relative
// name back into an absolute path (getcwd, then its own walk over the path's
// links) before each system call, and the working directory is shared by
// every thread of the process: Workers and parallel test modules would
// resolve their own relative paths against the moved directory. See
// docs/security.md, "Remaining windows".

import { join } from "node:path";
import { refusalFor } from "./_caller_path.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "../internal/quote.ts";

/** The folder an anchored step works in. */
export interface Anchor {
  /** The folder's real path. */
  readonly dir: string;
  /** The path to hand Deno for an entry of the folder (`.` for the folder itself). */
  at(name: string): string;
  /** Refuses unless the folder's path still resolves to itself. */
  still(): void;
  /**
   * Refuses unless the folder's path still leads to the folder (device and
   * inode) it led to when the step began: one stat, for a check per entry.
   * still() resolves the real path, whose cost grows with the square of the
   * folder's depth (each folder on the way is looked up from the top).
   */
  same(): void;
}

/**
 * Runs `fn` on the folder whose real path was just resolved as `expected`;
 * refuses as changed (or missing) when the path no longer resolves to it.
 */
export function anchoredIn<T>(expected: string, what: { action: string; path: string }, fn: (anchor: Anchor) => T): T {
  const still = () => {
    let now: string;
    try {
      now = Deno.realPathSync(expected);
    } catch (err) {
      refusalFor(err, what.action, what.path);
    }
    if (now !== expected) throw changed(what.action, what.path);
  };
  const identity = () => {
    try {
      const { dev, ino } = Deno.statSync(expected);
      return { dev, ino };
    } catch (err) {
      refusalFor(err, what.action, what.path);
    }
  };
  still();
  // Taken after one check of the folder's place; a step that compares with it checks the place again at its end.
  const first = identity();
  const same = () => {
    const now = identity();
    if (first.ino === null || now.ino !== first.ino || now.dev !== first.dev) throw changed(what.action, what.path);
  };
  return fn({ dir: expected, at: (name) => (name === "." ? expected : join(expected, name)), still, same });
}

/** The refusal for a file or folder that moved while it was being used. */
export function changed(action: string, path: string): PolicyError {
  return new PolicyError("changed", `Cannot ${action} ${quote(path)}: it changed while it was being opened; try again`);
}
