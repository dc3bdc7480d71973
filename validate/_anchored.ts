// Anchoring a file operation on a folder. Deno has no openat: the closest it
// offers is the working directory. Moving there with chdir and asking the
// kernel where the process now is (Deno.cwd(), getcwd) tells where that very
// folder lies, whatever links the path to it went through. Every later call
// by name inside the step starts from that folder's location at the moment of
// the call, so a folder swapped between two of our calls is followed, not
// escaped through. The whole step is synchronous: no other code of this
// process runs while the working directory is moved.
//
// Under scoped permissions Deno 2.9.6 turns a relative name into an absolute
// path (getcwd, then its own link walk) before the system call, so a swap that
// lands inside one Deno call can still redirect that call; the callers compare
// identities (device and inode) across two calls to catch it. See
// docs/security.md, "Remaining windows".

import { refusalFor } from "./_caller_path.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "./_quote.ts";

/** Where the process returns after each step, fixed at the first one. */
let home: string | undefined;

/** The folder an anchored step works in. */
export interface Anchor {
  /** The kernel's answer for where the folder lies now. */
  readonly cwd: string;
  /** Refuses unless the working directory is still `cwd` (the folder was not moved meanwhile). */
  still(): void;
}

/**
 * Runs `fn` with the working directory moved to `dir`, then moves back.
 * `fallbackHome` is where the process stays when it may not read its starting
 * folder (Deno's chdir needs read permission on the target): then it cannot
 * return there, and stays in `fallbackHome` (a root) between steps.
 *
 * The step refuses unless the kernel says the folder is exactly `expected`
 * (the real path just resolved): a folder swapped on the way is refused as
 * changed, never used.
 */
export function anchoredIn<T>(
  expected: string,
  fallbackHome: string,
  what: { action: string; path: string },
  fn: (anchor: Anchor) => T,
): T {
  home ??= startingHome(fallbackHome);
  try {
    Deno.chdir(expected);
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  try {
    const cwd = Deno.cwd();
    const anchor: Anchor = {
      cwd,
      still() {
        if (Deno.cwd() !== cwd) throw changed(what.action, what.path);
      },
    };
    if (cwd !== expected) throw changed(what.action, what.path);
    return fn(anchor);
  } finally {
    goHome();
  }
}

/** The refusal for a file or folder that moved while it was being used. */
export function changed(action: string, path: string): PolicyError {
  return new PolicyError("changed", `Cannot ${action} ${quote(path)}: it changed while it was being opened; try again`);
}

function startingHome(fallback: string): string {
  const start = Deno.cwd();
  return Deno.permissions.querySync({ name: "read", path: start }).state === "granted" ? start : fallback;
}

function goHome(): void {
  try {
    Deno.chdir(home!);
  } catch (err) {
    // The home folder vanished or lost its grant: every later relative path would be wrong, so say it loudly.
    throw new Error(`Cannot return to the working directory ${quote(home, 256)}: it is gone or not readable`, {
      cause: err,
    });
  }
}
