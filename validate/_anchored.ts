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

/** The folder an anchored step works in. */
export interface Anchor {
  /** The kernel's answer for where the folder lies now. */
  readonly cwd: string;
  /** Refuses unless the working directory is still `cwd` (the folder was not moved meanwhile). */
  still(): void;
}

/**
 * Runs `fn` with the working directory moved to `expected`, then moves back.
 * `fallbackHome` (a root) is where the process goes instead when it may not
 * read the folder it started the step in (Deno's chdir needs read permission
 * on its target) or that folder is gone; it then stays there between steps.
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
  let start: string | undefined;
  try {
    start = Deno.cwd();
  } catch {
    // The working directory was removed: there is nothing to return to.
  }
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
    goBack(start, fallbackHome);
  }
}

/** The refusal for a file or folder that moved while it was being used. */
export function changed(action: string, path: string): PolicyError {
  return new PolicyError("changed", `Cannot ${action} ${quote(path)}: it changed while it was being opened; try again`);
}

function goBack(start: string | undefined, fallback: string): void {
  if (start !== undefined) {
    try {
      Deno.chdir(start);
      return;
    } catch {
      // Not readable under this process's permissions, or gone: the fallback is a root, which is.
    }
  }
  try {
    Deno.chdir(fallback);
  } catch (err) {
    // Every later relative path would start somewhere unknown, so say it loudly.
    throw new Error(`Cannot return from an anchored step: ${quote(fallback, 256)} is gone or not readable`, {
      cause: err,
    });
  }
}
