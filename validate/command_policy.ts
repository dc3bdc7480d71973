import { isAbsolute, relative, resolve } from "node:path";
import { buildArgv, type CommandArg } from "./command_args.ts";
import { PolicyError } from "./policy_error.ts";
import { collectCapped } from "./_capped_stream.ts";
import { quote } from "../internal/quote.ts";
import { timerDelay } from "../internal/timer_delay.ts";

/** The input of {@linkcode CommandPolicy.create}. */
export interface CommandPolicyInit {
  /** The programs that may run, by name, each an absolute path fixed now: PATH is never searched. */
  programs: Readonly<Record<string, string>>;
  /** Folders a program may run in (its working directory lies inside one, links resolved). */
  roots: readonly string[];
  /**
   * Variables every program gets, with fixed values.
   * @default {{}}
   */
  env?: Readonly<Record<string, string>>;
  /**
   * Names of the server's own variables a program inherits (read once, now);
   * nothing else is inherited: no `GIT_*`, `LD_*`, proxy or credential variable.
   * @default {[]}
   */
  inheritEnv?: readonly string[];
  /**
   * Deadline of one run, in milliseconds; the whole process group is stopped then.
   * @default {10000}
   */
  timeoutMs?: number;
  /**
   * How long a program stopped at its deadline, on abort or past the output
   * cap has to end after its group gets SIGTERM (git removes its
   * `index.lock` then) before the group is killed with
   * SIGKILL; 0 sends SIGKILL at once. The SIGKILL comes either way, so
   * nothing in the group outlives the run.
   * @default {500}
   */
  termGraceMs?: number;
  /**
   * Most bytes kept of stdout, and separately of stderr; a program that writes more is stopped.
   * @default {1048576}
   */
  maxOutputBytes?: number;
  /**
   * The program that kills a process group (`kill -s KILL -- -<pgid>`): Deno's own
   * `Deno.kill` of a group needs an unscoped `--allow-run`.
   * @default {"/usr/bin/kill"}
   */
  killer?: string;
  /**
   * A program that starts each program in a session and process group of its
   * own without forking the server (`/usr/bin/setsid`: `setsid PROGRAM
   * ARGS…` execs it, so the pid stays the program's). Without one, Deno's
   * `detached` forks the server for every run, copying its page tables: the
   * git example's server spent about twice the CPU per command
   * (docs/benchmarks.md, "The group without a fork"). Each program's first
   * run still goes through `detached`, where Deno checks it against
   * `--allow-run`. The price: the starter runs whatever it is given, so
   * `--allow-run` (layer 2) no longer bounds which programs a compromised
   * server could start. Name one only where an allowed program can already
   * start any other (git can: `-c alias.x=!…`); the default keeps layer 2
   * whole.
   * @default {undefined (Deno's `detached`)}
   */
  sessionStarter?: string;
}

/** Options of one {@linkcode CommandPolicy.run}. */
export interface CommandRunOptions {
  /** The working directory: inside one of the roots. */
  cwd: string;
  /** Ends the run early (cancellation, shutdown): the group is stopped (SIGTERM, then SIGKILL). */
  signal?: AbortSignal;
  /**
   * A shorter deadline for this run.
   * @default {the policy's timeoutMs}
   */
  timeoutMs?: number;
  /**
   * Bytes written to the program's stdin, which is then closed. A program
   * that ends or is killed before it reads them all only ends the write.
   * @default {stdin is empty}
   */
  input?: Uint8Array;
  /**
   * Variables for this run only, set over the policy's (the git example
   * points one `git add` at a private object folder); names and values are
   * checked as the policy's are.
   * @default {{}}
   */
  env?: Readonly<Record<string, string>>;
}

/** How a run ended. */
export type CommandEnd = "exit" | "deadline" | "aborted" | "output-cap";

/** What a run produced. */
export interface CommandResult {
  /** The exit code (128 + the signal number when a signal ended it). */
  readonly code: number;
  /** The signal that ended the program, or null when it exited. */
  readonly signal: Deno.Signal | null;
  /** Why it ended: on its own, or stopped at the deadline, on abort, or for writing past the cap. */
  readonly ended: CommandEnd;
  /** stdout, decoded as UTF-8, at most `maxOutputBytes`. */
  readonly stdout: string;
  /** Whether stdout was cut at the cap. */
  readonly stdoutCut: boolean;
  /** stderr, decoded as UTF-8, at most `maxOutputBytes`. */
  readonly stderr: string;
  /** Whether stderr was cut at the cap. */
  readonly stderrCut: boolean;
}

// After the group is killed, a pipe can stay open only in a process that left
// the group (a daemon that called setsid): stop reading it after this long.
const DRAIN_GRACE_MS = 1000;

/**
 * Layer 1 for running programs: which programs (absolute paths fixed at
 * start), with which argv (typed parts, see {@linkcode buildArgv}), in which
 * folder (inside a root), with which environment (an allowlist; nothing is
 * inherited by default), for how long (a deadline that kills the program's
 * whole process group, grandchildren included), and how much output (capped,
 * with the cut reported). A child process runs outside Deno's sandbox: these
 * checks and the program's own options are its containment; layer 2
 * (`--allow-run=<paths>`, see {@linkcode CommandPolicy.programPaths}) only
 * limits which programs Deno starts.
 *
 * Each program starts in a process group of its own (a new session: Deno's
 * `detached`, or the `sessionStarter`); after it exits the group is killed
 * as well, so nothing it started outlives the call unless it left the group
 * itself. A program stopped early (deadline, abort, output cap) first gets
 * SIGTERM, so that it can remove its lock and temporary files, then SIGKILL
 * after `termGraceMs`.
 *
 * @example Run a program inside a root
 * ```ts ignore
 * import { arg, CommandPolicy } from "@forge/toolkit/validate";
 *
 * const commands = await CommandPolicy.create({ programs: { git: "/usr/bin/git" }, roots: ["/srv/repos"] });
 * const result = await commands.run("git", [arg.word("status"), arg.flag("--porcelain")], { cwd: "/srv/repos/app" });
 * console.log(result.code, result.stdout);
 * ```
 */
export class CommandPolicy {
  readonly #programs: ReadonlyMap<string, string>;
  readonly #roots: readonly string[];
  readonly #env: Readonly<Record<string, string>>;
  readonly #timeoutMs: number;
  readonly #maxOutputBytes: number;
  readonly #killer: string;
  readonly #termGraceMs: number;
  // The configured starter (null: none), and whether runs still use it: false once it was found missing.
  readonly #starterPath: string | null;
  #useStarter: boolean;
  // The programs started once with `detached`: a program missing from the system fails there with its own error
  // (through the starter it would be the starter's exit code 127), so only later runs go through the starter.
  readonly #started = new Set<string>();

  private constructor(
    init: Required<Omit<CommandPolicyInit, "inheritEnv" | "sessionStarter">> & { sessionStarter: string | null },
    roots: readonly string[],
  ) {
    this.#programs = new Map(Object.entries(init.programs));
    this.#roots = roots;
    this.#env = init.env;
    this.#timeoutMs = init.timeoutMs;
    this.#maxOutputBytes = init.maxOutputBytes;
    this.#killer = init.killer;
    this.#termGraceMs = init.termGraceMs;
    this.#starterPath = init.sessionStarter;
    this.#useStarter = init.sessionStarter !== null;
  }

  /**
   * Checks and fixes a command policy: program paths absolute, roots resolved
   * (links followed), inherited variables read once.
   *
   * @param init See {@linkcode CommandPolicyInit}.
   * @returns The policy.
   * @throws {TypeError} When a program path is not absolute, or a variable name or value is malformed.
   * @throws {RangeError} When a limit is not a positive integer.
   * @throws {Deno.errors.NotFound} When a root does not exist.
   *
   * @example Program paths must be absolute
   * ```ts
   * import { CommandPolicy } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * await assert.rejects(CommandPolicy.create({ programs: { git: "git" }, roots: [] }), TypeError);
   * ```
   */
  static async create(init: CommandPolicyInit): Promise<CommandPolicy> {
    const killer = init.killer ?? "/usr/bin/kill";
    const starter = init.sessionStarter;
    const named: [string, unknown][] = [...Object.entries(init.programs), ["killer", killer]];
    if (starter !== undefined) named.push(["sessionStarter", starter]);
    for (const [name, path] of named) {
      if (typeof path !== "string" || !isAbsolute(path) || path.includes("\0") || path.includes(",")) {
        throw new TypeError(
          `Cannot define commands: program ${quote(name)} needs an absolute path, got ${quote(path)}`,
        );
      }
    }
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(init.env ?? {})) env[envName(name)] = envValue(name, value);
    for (const name of init.inheritEnv ?? []) {
      const value = Deno.env.get(envName(name));
      if (value !== undefined) env[name] = envValue(name, value);
    }
    const roots = await Promise.all(init.roots.map((root) => Deno.realPath(resolve(root))));
    return new CommandPolicy({
      programs: Object.fromEntries(Object.entries(init.programs).map(([n, p]) => [n, resolve(p)])),
      roots: init.roots,
      env,
      timeoutMs: positive("timeoutMs", init.timeoutMs ?? 10_000),
      maxOutputBytes: positive("maxOutputBytes", init.maxOutputBytes ?? 1024 * 1024),
      killer: resolve(killer),
      sessionStarter: starter === undefined ? null : resolve(starter),
      termGraceMs: notNegative("termGraceMs", init.termGraceMs ?? 500),
    }, roots);
  }

  /**
   * The absolute paths Deno must be allowed to run (`--allow-run`): the programs, the killer and the session starter.
   *
   * @returns The paths, sorted.
   *
   * @example Feed the policy's `run` list
   * ```ts
   * import { CommandPolicy } from "@forge/toolkit/validate";
   * import assert from "node:assert/strict";
   *
   * const commands = await CommandPolicy.create({ programs: { git: "/usr/bin/git" }, roots: [] });
   * assert.deepEqual(commands.programPaths(), ["/usr/bin/git", "/usr/bin/kill"]);
   * ```
   */
  programPaths(): string[] {
    const starter = this.#starterPath === null ? [] : [this.#starterPath];
    return [...new Set([...this.#programs.values(), this.#killer, ...starter])].sort();
  }

  /**
   * Runs one allowed program to its end, its deadline, its output cap or
   * `signal`, whichever comes first. stdin is empty, or `input`.
   *
   * @param program A name from `programs`.
   * @param parts The argv, in typed parts.
   * @param options See {@linkcode CommandRunOptions}.
   * @returns What it produced, and how it ended.
   * @throws {PolicyError} When the working directory is outside the roots, or a caller's value is refused.
   * @throws {TypeError} When `program` is not allowed, or a variable of `env` is malformed.
   * @throws {Error} When the program cannot be started.
   *
   * @example Refuses a folder outside the roots
   * ```ts ignore
   * await commands.run("git", [arg.word("status")], { cwd: "/etc" }); // throws PolicyError
   * ```
   */
  async run(program: string, parts: readonly CommandArg[], options: CommandRunOptions): Promise<CommandResult> {
    const path = this.#programs.get(program);
    if (path === undefined) throw new TypeError(`Cannot run ${quote(program)}: it is not an allowed program`);
    const args = buildArgv(parts);
    const env = { ...this.#env };
    const action = `run ${quote(program)}`;
    for (const [name, value] of Object.entries(options.env ?? {})) {
      env[envName(name, action)] = envValue(name, value, action);
    }
    const cwd = await this.#inRoot(options.cwd);
    options.signal?.throwIfAborted();
    let child: Deno.ChildProcess;
    try {
      child = this.#spawn(path, args, { cwd, env, piped: options.input !== undefined });
    } catch (err) {
      // A starter that cannot be run (a folder, a file without the execute bit) is named, not taken for the program.
      const through = err instanceof StarterFailure ? ` through the session starter ${quote(this.#starterPath)}` : "";
      const cause = err instanceof StarterFailure ? err.cause : err;
      throw new Error(`Cannot run ${quote(program)}${through}: ${(cause as Error).name}`, { cause });
    }
    let ended: CommandEnd = "exit";
    let killed: Promise<unknown> | undefined;
    const stopReading = new AbortController();
    let grace: ReturnType<typeof setTimeout> | undefined;
    // Set below, before anything can stop the run: the program and both pipes have ended.
    let done: Promise<unknown> = Promise.resolve();
    const kill = (why: CommandEnd) => {
      if (ended === "exit") ended = why;
      // After an exit nothing is asked: what is left of the group is only what the program left running.
      killed ??= (why === "exit" ? this.#signalGroup(child.pid, "KILL") : this.#stopGroup(child, done)).finally(
        () => {
          grace = setTimeout(() => stopReading.abort(), DRAIN_GRACE_MS);
        },
      );
    };
    const timer = setTimeout(() => kill("deadline"), timerDelay(options.timeoutMs ?? this.#timeoutMs));
    const onAbort = () => kill("aborted");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const cap = this.#maxOutputBytes;
    const out = collectCapped(child.stdout, cap, () => kill("output-cap"), stopReading.signal);
    const err = collectCapped(child.stderr, cap, () => kill("output-cap"), stopReading.signal);
    const fed = options.input === undefined ? undefined : feed(child.stdin, options.input);
    done = Promise.all([child.status, out, err]);
    try {
      const status = await child.status;
      clearTimeout(timer);
      // What the program started and left running dies with its group.
      kill("exit");
      await killed;
      // A stop's group signals can come before the group exists (the starter, just started, has not called
      // setsid()): they reach the child alone, which may have become the program and started others meanwhile.
      // Once it has ended, its group is killed once more.
      if (ended !== "exit") await this.#signalGroup(child.pid, "KILL");
      const [stdout, stderr] = await Promise.all([out, err, fed]);
      // A leading U+FEFF is the program's: a file git shows that starts with one keeps it.
      const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
      return {
        code: status.code,
        signal: status.signal,
        ended,
        stdout: decoder.decode(stdout.bytes),
        stdoutCut: stdout.cut,
        stderr: decoder.decode(stderr.bytes),
        stderrCut: stderr.cut,
      };
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  /**
   * Starts `path` in a session of its own: through the starter, a posix_spawn
   * of the server and an exec (the starter is never a group leader, so it
   * calls setsid() without a fork of its own and the pid is the program's);
   * else Deno's `detached`, a fork of the server.
   */
  #spawn(
    path: string,
    args: string[],
    { cwd, env, piped }: { cwd: string; env: Record<string, string>; piped: boolean },
  ): Deno.ChildProcess {
    const options = (argv: string[], detached: boolean): Deno.CommandOptions => ({
      args: argv,
      cwd,
      env,
      clearEnv: true,
      stdin: piped ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
      detached,
    });
    if (this.#useStarter && this.#started.has(path)) {
      try {
        // The path is absolute, so the starter never reads it as one of its own options.
        return new Deno.Command(this.#starterPath!, options([path, ...args], false)).spawn();
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) throw new StarterFailure(err);
        this.#useStarter = false;
      }
    }
    const child = new Deno.Command(path, options(args, true)).spawn();
    this.#started.add(path);
    return child;
  }

  async #inRoot(cwd: string): Promise<string> {
    let real: string;
    try {
      real = await Deno.realPath(resolve(cwd));
    } catch {
      throw new PolicyError("outside-roots", `Cannot run in ${quote(cwd)}: the folder is not inside the allowed roots`);
    }
    const inside = this.#roots.some((root) => {
      const rel = relative(root, real);
      return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
    });
    if (!inside) {
      throw new PolicyError("outside-roots", `Cannot run in ${quote(cwd)}: the folder is not inside the allowed roots`);
    }
    return real;
  }

  /**
   * SIGTERM to the group, then SIGKILL once `done` settles or the grace ends,
   * whichever comes first. A group not there yet (the starter, just started,
   * has not called setsid()) gets the signal through the child itself, and
   * run() kills the group again once the child has ended.
   */
  async #stopGroup(child: Deno.ChildProcess, done: Promise<unknown>): Promise<void> {
    const signal = async (name: "TERM" | "KILL") => {
      if (await this.#signalGroup(child.pid, name)) return;
      try {
        child.kill(`SIG${name}`);
      } catch {
        // It has ended.
      }
    };
    if (this.#termGraceMs > 0) {
      await signal("TERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const graceEnded = new Promise((resolve) => timer = setTimeout(resolve, this.#termGraceMs));
      await Promise.race([done.catch(() => undefined), graceEnded]);
      clearTimeout(timer);
    }
    await signal("KILL");
  }

  /** Signals the group; false when the killer found no such group (ESRCH after an exit is the common case). */
  async #signalGroup(pid: number, signal: "TERM" | "KILL"): Promise<boolean> {
    const out = await new Deno.Command(this.#killer, {
      args: ["-s", signal, "--", `-${pid}`],
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output().catch(() => undefined);
    return out?.success ?? false;
  }
}

/** A session starter that could not be started (not a program Deno may run or can execute), with why. */
class StarterFailure extends Error {
  constructor(cause: unknown) {
    super("the session starter could not be started", { cause });
  }
}

/** Writes `input` to a program's stdin and closes it; a program gone before it read them all ends the write. */
async function feed(stdin: WritableStream<Uint8Array>, input: Uint8Array): Promise<void> {
  const writer = stdin.getWriter();
  try {
    await writer.write(input);
    await writer.close();
  } catch {
    // The program closed its stdin (ended, or was killed): what it did not read is not an error of the run.
    await writer.abort().catch(() => undefined);
  }
}

function envName(name: string, action = "define commands"): string {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) {
    throw new TypeError(`Cannot ${action}: env name ${quote(name)} is not a valid variable name`);
  }
  return name;
}

function envValue(name: string, value: unknown, action = "define commands"): string {
  if (typeof value !== "string" || value.includes("\0")) {
    throw new TypeError(`Cannot ${action}: env ${quote(name)} needs a string value without NUL bytes`);
  }
  return value;
}

function notNegative(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`Cannot define commands: ${name} must be an integer of 0 or more, got ${quote(value)}`);
  }
  return value;
}

function positive(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) {
    throw new RangeError(`Cannot define commands: ${name} must be a positive integer, got ${quote(value)}`);
  }
  return value;
}
