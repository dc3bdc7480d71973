// Anchoring a file operation on a folder. Deno has no openat: the closest it
// offers is the working directory. Moving there with chdir and asking the
// kernel where the process now is (Deno.cwd(), getcwd) tells where that very
// folder lies, whatever links the path to it went through. Every later call
// by name inside the step starts from that folder's location at the moment of
// the call, so a folder swapped between two of our calls is followed, not
// escaped through. The whole step is synchronous: no other code of this
// process runs while the working directory is moved.
//
// The process must be able to come back: Deno's chdir needs read permission
// on its target. When the folder the step starts in is not readable (or is
// gone), the step does not move the process at all; it uses the folder's
// real path and checks, before and after, that the path still resolves to
// it (Deno.realPathSync). Both ways are synchronous.
//
// Under scoped permissions Deno 2.9.6 turns a relative name into an absolute
// path (getcwd, then its own link walk) before the system call, so a swap that
// lands inside one Deno call can still redirect that call; the callers compare
// identities (device and inode) across two calls to catch it. See
// docs/security.md, "Remaining windows".

import { join } from "node:path";
import { refusalFor } from "./_caller_path.ts";
import { PolicyError } from "./policy_error.ts";
import { quote } from "./_quote.ts";

/** The folder an anchored step works in. */
export interface Anchor {
  /** Where the folder lies: the kernel's answer, or its checked real path. */
  readonly cwd: string;
  /** The path to hand Deno for an entry of the folder (`.` for the folder itself). */
  at(name: string): string;
  /** The absolute path of an entry of the folder where the step found it. */
  beside(name: string): string;
  /** Refuses unless the folder is still where the step found it. */
  still(): void;
}

/**
 * Runs `fn` anchored on the folder whose real path was just resolved as
 * `expected`; refuses as changed when the folder is not there any more.
 */
export function anchoredIn<T>(expected: string, what: { action: string; path: string }, fn: (anchor: Anchor) => T): T {
  const start = returnable();
  if (start === undefined) return fn(byPath(expected, what));
  try {
    Deno.chdir(expected);
  } catch (err) {
    refusalFor(err, what.action, what.path);
  }
  try {
    const cwd = Deno.cwd();
    if (cwd !== expected) throw changed(what.action, what.path);
    return fn({
      cwd,
      at: (name) => name,
      beside: (name) => join(cwd, name),
      still() {
        if (Deno.cwd() !== cwd) throw changed(what.action, what.path);
      },
    });
  } finally {
    goBack(start);
  }
}

/** The refusal for a file or folder that moved while it was being used. */
export function changed(action: string, path: string): PolicyError {
  return new PolicyError("changed", `Cannot ${action} ${quote(path)}: it changed while it was being opened; try again`);
}

/** The working directory, when this process may go back to it after a step. */
function returnable(): string | undefined {
  try {
    const start = Deno.cwd();
    return Deno.permissions.querySync({ name: "read", path: start }).state === "granted" ? start : undefined;
  } catch {
    // The working directory was removed: there is nothing to return to.
    return undefined;
  }
}

function byPath(expected: string, what: { action: string; path: string }): Anchor {
  const still = () => {
    let now: string;
    try {
      now = Deno.realPathSync(expected);
    } catch (err) {
      refusalFor(err, what.action, what.path);
    }
    if (now !== expected) throw changed(what.action, what.path);
  };
  still();
  const at = (name: string) => (name === "." ? expected : join(expected, name));
  return { cwd: expected, at, beside: at, still };
}

function goBack(start: string): void {
  try {
    Deno.chdir(start);
  } catch (err) {
    // Checked readable a moment ago; if it vanished since, every later relative path would be wrong.
    throw new Error(`Cannot return from an anchored step to ${quote(start, 256)}: it is gone or not readable`, {
      cause: err,
    });
  }
}
