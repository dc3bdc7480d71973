// A process that serves MCP over stdio owns its stdout from its first line:
// a `console.log` at the top of main.ts, run before the initialize reply,
// would otherwise be read by the client as a broken JSON-RPC message. So, on
// the toolkit's import (see runner/_guard_on_import.ts), a process that looks like a
// server (not asked to print something, not a test) diverts stdout to stderr
// at once, and a start-up mistake thrown while modules load ends the process
// with one line instead of a stack trace. Whatever serves next takes both
// over: run() with its own guard, serve() or StdioTransport on Deno.stdout by
// lifting them.

import { stderrQueue } from "./stderr.ts";
import { guardStdout, type StdoutGuard } from "./stdout_guard.ts";

// Flags whose whole point is to print on stdout (--health, --print-permissions,
// --print-host-config, --help): such a process does not serve.
const PRINTS = /^(--health|--help|-h|--print-[a-z-]+(=.*)?)$/;
// Test, bench and doc-test modules, and `deno eval`: they import the toolkit
// without serving, and their output belongs to the runner.
const NOT_A_SERVER = /(^|[/._])(test|bench)\.[cm]?[jt]sx?$|\$/;

let early: { guard: StdoutGuard; listener: (event: PromiseRejectionEvent) => void } | undefined;

/** Whether this process will serve over stdio: it prints nothing on request and is no test. */
export function looksLikeServer(args: readonly string[], mainModule: string): boolean {
  return !args.some((arg) => PRINTS.test(arg)) && !NOT_A_SERVER.test(mainModule);
}

/** Diverts stdout and catches start-up rejections until {@linkcode takeEarlyStart} is called. */
export function startEarly(): void {
  if (early !== undefined) return;
  const { error, warn } = console;
  const guard = guardStdout();
  // Until serving starts, stderr output stays as Deno writes it: a line
  // printed just before Deno.exit(1) (a bad config) must not wait in a queue
  // the exit discards.
  Object.assign(console, { error, warn });
  const listener = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    const line = startupLine(Deno.mainModule.split("/").at(-1) ?? "server", event.reason);
    // What the modules logged goes first; the exit would discard the queue.
    void stderrQueue().flush(250).then(() => {
      takeEarlyStart();
      console.error(line);
      Deno.exit(1);
    });
  };
  globalThis.addEventListener("unhandledrejection", listener);
  early = { guard, listener };
}

/** Ends the early phase: removes the listener and lifts the early guard (run() installs its own at once). */
export function takeEarlyStart(): void {
  if (early === undefined) return;
  globalThis.removeEventListener("unhandledrejection", early.listener);
  early.guard.restore();
  early = undefined;
}

// The folders of the toolkit's serving code: a frame in them is not where the author's mistake is. Made at the
// first failure: the first URL of a process loads Deno's URL code, a cost at every start.
let toolkitDirs: string[] | undefined;
const TOOLKIT_DIR_NAMES = ["toolkit", "engine", "stdio", "runner", "internal"];

/**
 * The one line a start-up failure is reported with: the message and, for
 * context, the first place outside the toolkit it came from. Never a stack.
 */
export function startupLine(name: string, err: unknown): string {
  let message: string;
  let at: string | undefined;
  try {
    if (err instanceof Error) {
      message = err.name === "Error" || err.name === "TypeError" || err.name === "RangeError"
        ? err.message
        : `${err.name}: ${err.message}`;
      at = (err.stack ?? "").split("\n").slice(1).map((l) => l.trim().replace(/^at /, ""))
        .map((l) => l.match(/\(?((?:file|https?|jsr|npm):[^()\s]+:\d+:\d+)\)?$/)?.[1])
        .find((loc) => loc !== undefined && !inToolkit(loc));
    } else message = String(err);
  } catch {
    message = "a thrown value that cannot be shown";
  }
  const line = `${name}: ${message.replaceAll(/\s*\n\s*/g, " ")}`;
  return at === undefined ? line : `${line} (at ${at})`;
}

function inToolkit(location: string): boolean {
  toolkitDirs ??= TOOLKIT_DIR_NAMES.map((dir) => new URL(`../${dir}/`, import.meta.url).href);
  return toolkitDirs.some((dir) => location.startsWith(dir));
}
