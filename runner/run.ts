import type { PermissionSet } from "../permissions/permission_set.ts";
import type { Policy } from "../validate/policy.ts";
import "./_guard_on_import.ts";
import { logLine, stderrQueue } from "../internal/stderr.ts";
import { within } from "../internal/within.ts";
import { hasOption } from "../internal/option_args.ts";
import { bypassEnvironmentProxy, fetchesDirectly } from "../internal/direct_fetch.ts";
import { missingRootWarnings } from "./_missing_roots.ts";
import { startupLine, takeEarlyStart } from "../internal/startup.ts";
import { guardStdout, type StdoutGuard } from "../internal/stdout_guard.ts";
import type { Connection, ServeOptions } from "../stdio/serve_core.ts";
import type { ProcessStdio } from "../stdio/process_stdio.ts";
import { Server } from "../toolkit/server.ts";
import { settleSchemas } from "../toolkit/registry.ts";

/** Options of {@linkcode run}: the server's identity, limits, and lifecycle hooks. */
export interface RunOptions extends ServeOptions {
  /**
   * The server's version, sent to clients.
   * @default {"0.0.0"}
   */
  version?: string;
  /** A display title, sent to clients. */
  title?: string;
  /** Instructions for the model, sent to clients. */
  instructions?: string;
  /**
   * Runs exactly once after the last reply was written: close the Manager here.
   * It shares the shutdown's bound with the calls in flight: it gets what is
   * left of `shutdownGraceMs` plus one second, counted from the start of
   * shutdown; the process exits then whether it finished or not.
   */
  onClose?: () => void | Promise<void>;
  /**
   * After how many reads of stdin and writes to stdout the server moves them
   * onto Deno's event loop, as non-blocking sockets (`node:net`): until then
   * each read and write goes through a thread of Deno's blocking pool, some
   * 20-40 µs of CPU apiece, and the move costs ~30 ms of CPU once, to load
   * `node:net` (see `processStdio()` in `@forge/toolkit/stdio`). The load
   * waits for the first pause after them (a read of stdin waiting 50 ms with
   * nothing going out), or for twice as many operations without one; stderr
   * says once when it happens. 0 moves them at once, `Infinity` never: a
   * server that spawns children with inherited stdin or stdout may want
   * that, since the move makes the shared descriptors non-blocking (and so
   * does a host that sends stderr into stdout's pipe). A file or a terminal
   * is never moved.
   * @default {256}
   */
  moveStdioAfter?: number;
  /**
   * Whether `run()` ends the process (exit code 0) once closed. Tests that
   * serve in-process set it to false.
   * @default {true}
   */
  exit?: boolean;
  /**
   * The policy both security layers enforce: `--print-permissions` prints the
   * server's least-privilege Deno flags and exits, and at start the server
   * refuses to serve (exit 2) when it holds more than the policy needs
   * (`--allow-excess-permissions` overrides, loudly, for development) or lacks
   * a grant the policy needs. A root of the policy that does not exist gets
   * one warning line on stderr at start; the server still serves. A policy
   * that allows a host (and does not set `net.environmentProxy`) has the
   * server set `NO_PROXY` and `no_proxy` to `*,0.0.0.0/0,::/0` in its own environment once the
   * check passes, before `register` runs: `fetch` then ignores any proxy the
   * environment names and connects to the address layer 1 checked.
   * @default {a policy that allows nothing: the server needs no permission at all}
   */
  policy?: Policy;
  /**
   * The command-line arguments (`--print-permissions`, `--allow-excess-permissions`).
   * @default {Deno.args}
   */
  args?: readonly string[];
}

/**
 * Serves a tools-only MCP server over stdio until stdin ends or SIGINT,
 * SIGTERM, SIGHUP or SIGQUIT arrives.
 *
 * `console.log` and direct stdout writes from your code go to stderr, so
 * nothing but JSON-RPC ever reaches stdout: from the toolkit's import in a
 * process that will serve (one not started with `--health`, `--help` or a
 * `--print-*` flag, which print on stdout on purpose), and in any case before
 * `register` runs. A start-up mistake — a duplicate tool name, a bad schema,
 * missing annotations, an error thrown while the modules load or in
 * `register` — ends the process with one stderr line and exit code 1, never a
 * stack trace. On shutdown it stops
 * reading, lets calls in flight finish for `shutdownGraceMs`, aborts the rest
 * through their AbortSignal, writes the last replies, runs `onClose` once and
 * exits with code 0 — within `shutdownGraceMs` plus one second, even when the
 * client stopped reading stdout. A second signal exits at once (128 + signal
 * number). Nothing written to stderr (logs, `console.*`) can block the server:
 * lines wait in a bounded buffer and are dropped, and counted, when nobody
 * reads stderr; a closed stderr is ignored.
 *
 * Least privilege by default: `--print-permissions` prints the Deno flags the
 * server's `policy` needs and exits, and at start the server checks
 * `Deno.permissions` and refuses to serve (exit 2, one stderr line with the
 * flags to use) when it holds more than its policy needs or lacks a grant
 * the policy needs. Without a `policy` the server may hold no permission at all.
 *
 * @param name The server's name, e.g. `files`. Tool names carry no prefix.
 * @param register Adds the tools; may be async.
 * @param options See {@linkcode RunOptions}.
 * @returns Resolves after shutdown (when `exit` is false).
 * @throws {TypeError} When `exit` is false and `register` throws: the server does not start.
 *
 * @example A complete main.ts
 * ```ts ignore
 * import { addTool, health, run, schema, text } from "@forge/toolkit";
 *
 * if (!health()) {
 *   await run("hello", (server) => {
 *     addTool(server, {
 *       name: "hello",
 *       description: "Says hello",
 *       inputSchema: schema(),
 *       annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
 *     }, () => text("hello"));
 *   });
 * }
 * ```
 */
export async function run(
  name: string,
  register: (server: Server) => void | Promise<void>,
  options: RunOptions = {},
): Promise<void> {
  let server: Server;
  let guard: StdoutGuard | undefined;
  let connection: Connection;
  let stdio: ProcessStdio | undefined;
  // The serving half and the start-up check are loaded on start, not at import: `--health` must not pay for them.
  // No JSON Schema engine among them: that is loaded after register, only when a schema needs it (settleSchemas()).
  const serving = import("./_start.ts");
  try {
    if (!(await permitted(name, options.policy, options, serving))) return;
    server = new Server({
      name,
      version: options.version,
      title: options.title,
      instructions: options.instructions,
    });
    // In force before register runs: nothing an author prints reaches stdout.
    takeEarlyStart();
    guard = guardStdout({ stderr: true });
    const { processStdio, serve } = await serving;
    await register(server);
    // A schema the engine refuses stops the start here, as it would in addTool with the engine loaded.
    await settleSchemas(server);
    stdio = processStdio({
      reader: Deno.stdin,
      writer: guard.stdout,
      moveAfter: moveStdioAfter(options),
      onMove: (operations) => {
        const line = `stdin and stdout move onto the event loop after ${operations} reads and writes`;
        if (options.log) options.log(line);
        else logLine(`${name}: ${line}`);
      },
    });
    connection = serve(server, stdio, options);
  } catch (err) {
    // A start-up mistake (a duplicate tool, a bad schema or option) is one
    // line and exit code 1, never a stack trace. What register logged goes
    // first; the line itself is written at once, not queued, because the
    // exit would discard the queue.
    if (guard !== undefined) {
      await stderrQueue().flush(250);
      guard.restore();
    }
    takeEarlyStart();
    if (options.exit === false) throw err;
    console.error(startupLine(name, err));
    Deno.exit(1);
  }
  const { shutdownStartedAt, callsSettled, DEFAULT_SHUTDOWN_GRACE_MS, FLUSH_MS, LAST_LOG_MS } = await serving;
  const grace = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  let signalled = false;
  const onSignal = (signal: Deno.Signal) => () => {
    if (signalled) Deno.exit(128 + (SIGNAL_NUMBERS[signal] ?? 0));
    signalled = true;
    void connection.close();
  };
  const listeners = shutdownSignals().map((signal) => [signal, onSignal(signal)] as const);
  for (const [signal, listener] of listeners) Deno.addSignalListener(signal, listener);
  try {
    // One budget for the whole shutdown: calls and onClose share the grace
    // period, and the last writes get at most one more second. onClose needs
    // no stdout, so it runs while the last replies flush: a client that
    // stopped reading cannot use up its time.
    await callsSettled(connection);
    const deadline = (shutdownStartedAt(connection) ?? performance.now()) + grace + FLUSH_MS;
    if (options.onClose) await closeOnce(options.onClose, Math.max(0, deadline - performance.now()), name);
    await connection.closed;
    // The line naming replies not delivered is written at the end of the budget: on a loaded machine a late timer
    // can leave nothing of it, so stderr gets LAST_LOG_MS in any case (the exit is at most that much later).
    await stderrQueue().flush(Math.max(LAST_LOG_MS, Math.min(FLUSH_MS, deadline - performance.now())));
  } finally {
    for (const [signal, listener] of listeners) Deno.removeSignalListener(signal, listener);
    guard!.restore();
    stdio?.close();
  }
  // Exits even with a write to stdout or stderr still pending: a client that
  // stopped reading cannot hold the process.
  if (options.exit !== false) Deno.exit(0);
}

/** The `moveStdioAfter` option, checked: a count of operations, 0 or more (`Infinity`: never). */
function moveStdioAfter(options: RunOptions): number | undefined {
  const value = options.moveStdioAfter;
  if (value === undefined || (typeof value === "number" && value >= 0)) return value;
  throw new TypeError(`run(): moveStdioAfter must be a number of operations, 0 or more; got ${String(value)}`);
}

/** The number of each signal that shuts a server down gracefully; a second one exits with 128 + it. */
const SIGNAL_NUMBERS: Partial<Record<Deno.Signal, number>> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGTERM: 15,
  SIGBREAK: 21,
};

/**
 * SIGHUP (the terminal or host went away) and SIGQUIT take the same graceful
 * path as SIGINT and SIGTERM. Windows delivers only SIGINT and SIGBREAK.
 */
function shutdownSignals(): Deno.Signal[] {
  return Deno.build.os === "windows" ? ["SIGINT", "SIGBREAK"] : ["SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"];
}

/**
 * What a server without a policy may hold: nothing, the set a policy that
 * allows nothing derives (`permissions/permission_set_test.ts` checks it),
 * built without loading the policy code and its path arithmetic.
 */
const NO_PERMISSIONS: PermissionSet = Object.freeze({
  read: Object.freeze([]),
  write: Object.freeze([]),
  net: Object.freeze([]),
  denyNet: Object.freeze([]),
  env: Object.freeze([]),
  run: Object.freeze([]),
});

/** Layer 2 at start: prints the flags when asked, else refuses to serve with excess permissions. */
async function permitted(
  name: string,
  policy: Policy | undefined,
  options: RunOptions,
  starting: Promise<typeof import("./_start.ts")>,
): Promise<boolean> {
  const args = options.args ?? Deno.args;
  // The files it needs, not permissions/mod.ts: Deno reads a dynamic import's
  // whole graph at start, and the barrel would pull in configreload. Without a
  // policy there is nothing to derive (nor the address tables to load).
  const [set, start, grantProblems] = await Promise.all([
    policy === undefined
      ? NO_PERMISSIONS
      : import("../permissions/permission_set.ts").then(({ derivePermissions }) => derivePermissions(policy)),
    starting,
    policy === undefined || policy.readFiles.length + policy.writeFiles.length === 0
      ? []
      : import("../permissions/file_grants.ts").then(({ fileGrantProblems }) => fileGrantProblems(policy)),
  ]);
  const { enforceLeastPrivilege, EXCESS_PERMISSIONS_EXIT_CODE, formatPermissionFlags, PRINT_PERMISSIONS_FLAG } = start;
  // A file grant that is a folder or a link grants what is below it: neither printed nor served.
  if (grantProblems.length > 0) {
    for (const problem of grantProblems) console.error(`${name}: refusing to serve: ${problem}`);
    if (options.exit !== false) Deno.exit(EXCESS_PERMISSIONS_EXIT_CODE);
    return false;
  }
  if (hasOption(args, PRINT_PERMISSIONS_FLAG)) {
    // The values themselves, never `${NAME}`: the line is pasted or captured into a command.
    await Deno.stdout.write(new TextEncoder().encode(`${formatPermissionFlags(set)}\n`));
    if (options.exit !== false) Deno.exit(0);
    return false;
  }
  const verdict = await enforceLeastPrivilege(set, { name, args, log: (line) => console.error(line) });
  if (verdict.ok) {
    if (policy === undefined) return true;
    // Before register, so before any handler can fetch: every connection goes where layer 1 checked, never to a
    // proxy the environment names (docs/security.md, note 10). The check above made sure both names are granted.
    if (fetchesDirectly(policy.net)) bypassEnvironmentProxy();
    for (const line of await missingRootWarnings(name, policy)) console.error(line);
    return true;
  }
  if (options.exit !== false) Deno.exit(EXCESS_PERMISSIONS_EXIT_CODE);
  return false;
}

/**
 * Runs `onClose` once, for at most `graceMs`; a failure, or a hang past the bound, is one stderr line. The bound is
 * within()'s: V8's timer, not the global `setTimeout`, whose first read at shutdown would load node:timers (5-15 ms).
 * An onClose that waits on nothing that holds the process still ends at the bound: run()'s signal listeners hold it
 * until after the last flush, and within() holds it besides.
 */
async function closeOnce(onClose: () => void | Promise<void>, graceMs: number, name: string): Promise<void> {
  let failure: string | undefined = `took over ${graceMs} ms`;
  const closing = Promise.resolve().then(onClose).then(
    () => void (failure = undefined),
    (err: unknown) => void (failure = err instanceof Error ? err.message : String(err)),
  );
  await within(closing, graceMs);
  if (failure !== undefined) console.error(`${name}: onClose failed: ${failure}`);
}
