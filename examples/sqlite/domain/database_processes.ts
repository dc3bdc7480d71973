// The server's database processes. node:sqlite cannot interrupt a statement,
// and a Worker cannot stop a thread inside SQLite (deno_facts_test.ts), yet
// compiling one hostile query can take SQLite minutes and running one hours.
// So every statement runs in a child process with access to the database
// file only (read; write too for `execute`), and a job that passes its deadline (or is cancelled) ends with
// the process: SIGKILL stops SQLite wherever it is. A spare process is kept
// ready, so that a call arriving while another one works (or after a kill)
// does not wait for a process to start. A compiled server has no deno to
// start: it starts its own binary in database-process mode, which lets go of
// the binary's other grants before it opens anything (keep_only_database.ts).
import { fileURLToPath } from "node:url";
import { PolicyError, type PolicyErrorCode } from "@forge/toolkit/validate";
import {
  type DatabaseJob,
  type DatabaseReply,
  HotJournalError,
  JOB_ACTIONS,
  JOB_DEADLINE_ADVICE,
  MAX_REPLY_BYTES,
} from "./database_job.ts";
import { MEMORY_CAP_MB } from "./connection.ts";
import { type DatabaseIdentity, databaseIdentity } from "./database_file.ts";
import { databaseProcessArgs } from "./database_process_args.ts";
import { jsonLine, readJsonLines } from "./json_lines.ts";
import { databaseReads } from "./super_journal.ts";

/** Options of {@linkcode DatabaseProcesses}. */
export interface DatabaseProcessesOptions {
  /**
   * How many queries may run at once; `list` and `describe` may use one process more, so they still answer then.
   * @default {4}
   */
  maxQueries?: number;
  /**
   * How long a process may take to start and open the database, in milliseconds.
   * @default {30000}
   */
  startTimeoutMs?: number;
  /**
   * Whether the processes may write the database (`execute`): they get `--allow-write` for it too, and a
   * read-write connection. Only when Deno lets this process write it.
   * @default {false}
   */
  writable?: boolean;
  /**
   * How many idle processes are kept. With two or more, a spare starts whenever a job takes the last one.
   * @default {2}
   */
  maxIdle?: number;
  /**
   * The files this server may read and write besides the database (its policy's `readFiles` and
   * `writeFiles`): a compiled server's process starts with the same baked grants, and lets go of these.
   * @default {{ read: [], write: [] }}
   */
  serverFiles?: ServerFiles;
  /**
   * The cap on SQLite's memory in each process, in MiB, until a job asks for another (see {@linkcode JobRun}).
   * @default {256}
   */
  maxMemoryMb?: number;
  /**
   * `max_database_mb`, for a process that may write to check its journal against when it opens (each job that
   * writes brings its own config's).
   * @default {undefined, for the default of `max_database_mb`}
   */
  maxDatabaseMb?: number;
  /**
   * The database file the server started with (its device and inode): each process refuses to open another one
   * at the database's path, a link swapped in there too (see `databaseFileProblem`).
   * @default {the file's identity when the pool is made, or else when it first starts a process}
   */
  identity?: DatabaseIdentity;
  /**
   * The longest reply line read from a process, in bytes: a longer one is refused and its process killed.
   * @default {MAX_REPLY_BYTES}
   */
  maxReplyBytes?: number;
  /**
   * For tests: each process started is taken as ready only once this has resolved too, so a test can hold a
   * start back for as long as it needs.
   * @default {undefined, for no wait}
   */
  startGate?: Promise<void>;
}

/** The files a server's grants name, as its policy lists them. */
export interface ServerFiles {
  /** Files it may read. */
  read: readonly string[];
  /** Files it may write. */
  write: readonly string[];
}

/** How to start one database process: under deno, or as a compiled server's own binary. */
export interface DatabaseProcessCommandOptions {
  /** The database file (absolute). */
  database: string;
  /** Whether the process may write it. */
  writable: boolean;
  /** The cap on SQLite's memory in the process, in MiB. */
  maxMemoryMb: number;
  /** `max_database_mb`, for a process that may write. */
  maxDatabaseMb?: number;
  /** Whether this server is a compiled binary (`Deno.build.standalone`). */
  standalone: boolean;
  /** This process's executable (`Deno.execPath()`): deno, or the compiled binary. */
  execPath: string;
  /** The server's files besides the database, for a compiled server's process to let go of. */
  serverFiles: ServerFiles;
  /** The database file the server started with, for the process to check before and after it opens. */
  identity?: DatabaseIdentity;
}

/** How one job runs. */
export interface JobRun {
  /** How long the job may take once its process is ready, in milliseconds. */
  timeoutMs: number;
  /**
   * When the call must be answered, as a `performance.now()` time: the wait
   * for a process to start and the job's own deadline together end by then.
   * A start that reaches it ends the job with an error that names the slow
   * start; a job that gets less than `timeoutMs` after its start is stopped
   * at this time, with an error that says so.
   * @default {no limit besides the start's and `timeoutMs`}
   */
  endsAt?: number;
  /** Ends the job early (cancellation, the tool's own deadline): its process is killed. */
  signal?: AbortSignal;
  /**
   * The cap on SQLite's memory the job runs under, in MiB. SQLite cannot
   * raise a process's cap, so when this differs from the pool's the pool
   * takes it for every process it starts from then on: its idle processes
   * end at once, and a process busy with another job ends once that job is
   * answered (that job keeps the cap it started under).
   * @default {the pool's current cap}
   */
  maxMemoryMb?: number;
}

interface Child {
  process: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  replies: AsyncGenerator<unknown>;
  /** Resolves once the process has opened the database. */
  ready: Promise<void>;
  /** The cap on SQLite's memory it was started with, in MiB. */
  maxMemoryMb: number;
}

const RESTART = "restart the server with the flags from --print-permissions";
const TOO_LARGE_ADVICE = "ask for less (fewer or shorter columns, short aliases for long names, fewer rows)";
const SOURCE = new URL("../database_process.ts", import.meta.url);
/**
 * What `deno run` starts as a database process: `database_process.ts` beside
 * `main.ts`, or in a bundle (where this code sits in a chunk with no sources
 * beside it) the bundle's entry, which is `main.ts` bundled and serves as a
 * database process when it sees the flag, as a compiled binary does.
 */
const SCRIPT = import.meta.url.endsWith("/domain/database_processes.ts")
  ? fileURLToPath(SOURCE)
  : fileURLToPath(Deno.mainModule);

/**
 * The program and arguments of one database process. Under deno:
 * `deno run` with read access to the database alone (and write, for a
 * writer), running `database_process.ts` (a bundle's own entry, when the
 * server runs from a bundle). Compiled: the binary itself,
 * whose `main.ts` serves as a database process when it sees the flag, and
 * which is told the server's other files so that it can let go of them.
 *
 * @param options See {@linkcode DatabaseProcessCommandOptions}.
 * @returns The program and its arguments.
 *
 * @example A compiled server's reader
 * ```ts
 * import { databaseProcessCommand } from "./database_processes.ts";
 * import assert from "node:assert/strict";
 *
 * const { program, args } = databaseProcessCommand({
 *   database: "/srv/shop.db",
 *   writable: false,
 *   maxMemoryMb: 256,
 *   standalone: true,
 *   execPath: "/opt/sqlite",
 *   serverFiles: { read: ["/etc/s.json", "/srv/shop.db"], write: [] },
 * });
 * assert.deepEqual([program, ...args], [
 *   "/opt/sqlite",
 *   "--database-process",
 *   "/srv/shop.db",
 *   "--max-memory-mb=256",
 *   "--drop-read=/etc/s.json",
 * ]);
 * ```
 */
export function databaseProcessCommand(options: DatabaseProcessCommandOptions): { program: string; args: string[] } {
  const { database, writable, maxMemoryMb, maxDatabaseMb, identity } = options;
  if (options.standalone) {
    const kept = databaseReads(database, writable);
    const others = (paths: readonly string[]) => paths.filter((path) => !kept.includes(path));
    const dropRead = others(options.serverFiles.read);
    const dropWrite = others(options.serverFiles.write);
    return {
      program: options.execPath,
      args: databaseProcessArgs({ database, writable, maxMemoryMb, maxDatabaseMb, identity, dropRead, dropWrite }),
    };
  }
  return {
    program: options.execPath,
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "--no-lock",
      "--cached-only",
      `--allow-read=${databaseReads(database, writable).join(",")}`,
      ...(writable ? [`--allow-write=${database}`] : []),
      SCRIPT,
      ...databaseProcessArgs({
        database,
        writable,
        maxMemoryMb,
        maxDatabaseMb,
        identity,
        dropRead: [],
        dropWrite: [],
      }),
    ],
  };
}

/** The database processes of one database file: one job per process at a time. */
export class DatabaseProcesses {
  readonly #database: string;
  readonly #maxQueries: number;
  readonly #startTimeoutMs: number;
  readonly #writable: boolean;
  readonly #maxIdle: number;
  readonly #serverFiles: ServerFiles;
  #maxMemoryMb: number;
  readonly #maxDatabaseMb: number | undefined;
  #identity: DatabaseIdentity | undefined;
  readonly #maxReplyBytes: number;
  readonly #startGate: Promise<void> | undefined;
  readonly #idle: Child[] = [];
  /** Each busy process, with what ends its job when the pool closes. */
  readonly #busy = new Map<Child, () => void>();
  readonly #all = new Set<Child>();
  #closed = false;

  /**
   * Makes the pool; no process starts until the first job.
   *
   * @param database The database file (absolute); each process may read it and nothing else.
   * @param options The limits.
   */
  constructor(database: string, options: DatabaseProcessesOptions = {}) {
    this.#database = database;
    this.#maxQueries = options.maxQueries ?? 4;
    this.#startTimeoutMs = options.startTimeoutMs ?? 30_000;
    this.#writable = options.writable ?? false;
    this.#maxIdle = options.maxIdle ?? 2;
    this.#serverFiles = options.serverFiles ?? { read: [], write: [] };
    this.#maxMemoryMb = options.maxMemoryMb ?? MEMORY_CAP_MB.default;
    this.#maxDatabaseMb = options.maxDatabaseMb;
    this.#identity = options.identity ?? databaseIdentity(database);
    this.#maxReplyBytes = options.maxReplyBytes ?? MAX_REPLY_BYTES;
    this.#startGate = options.startGate;
  }

  /** The process ids of the live processes, busy or idle. */
  get pids(): number[] {
    return [...this.#all].map((child) => child.process.pid);
  }

  /**
   * Runs one job in a process and answers by its deadline.
   *
   * @param job What to do.
   * @param run The deadline, the signal and the heap cap.
   * @returns The job's value.
   * @throws {PolicyError} When the job is refused or fails, runs past its deadline, is cancelled, or cannot start.
   */
  run(job: DatabaseJob, run: JobRun): Promise<unknown> {
    const action = JOB_ACTIONS[job.kind];
    const refuse = (code: PolicyErrorCode, state: string) => new PolicyError(code, `Cannot ${action}: ${state}`);
    if (this.#closed) return Promise.reject(refuse("sql", "the server is shutting down"));
    if (run.signal?.aborted) return Promise.reject(refuse("sql", "the call was cancelled"));
    if (run.maxMemoryMb !== undefined && run.maxMemoryMb !== this.#maxMemoryMb) {
      this.#maxMemoryMb = run.maxMemoryMb;
      for (const idle of this.#idle.splice(0)) this.#end(idle);
    }
    if (this.#busy.size >= this.#maxQueries + (job.kind === "query" ? 0 : 1)) {
      const running = this.#maxQueries === 1 ? "1 query is" : `${this.#maxQueries} queries are`;
      return Promise.reject(refuse("sql", `${running} already running; try again shortly`));
    }
    let child: Child;
    try {
      child = this.#idle.pop() ?? this.#spawn();
    } catch (err) {
      return Promise.reject(err instanceof PolicyError ? err : refuse("sql", "its database process did not start"));
    }
    // A spare, so that a call arriving while this one works finds a process ready.
    if (this.#idle.length === 0 && this.#maxIdle >= 2) this.#spare();
    return new Promise<unknown>((resolve, reject) => {
      let settled = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (error: Error | undefined, value: unknown, keep: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        run.signal?.removeEventListener("abort", onAbort);
        this.#busy.delete(child);
        if (keep && !this.#closed) this.#release(child);
        else this.#kill(child, !keep);
        if (error === undefined) resolve(value);
        else reject(error);
      };
      const onAbort = () => finish(refuse("sql", "the call was cancelled"), undefined, false);
      run.signal?.addEventListener("abort", onAbort, { once: true });
      this.#busy.set(child, () => finish(refuse("sql", "the server is shutting down"), undefined, false));
      const began = performance.now();
      const left = () => (run.endsAt ?? Infinity) - performance.now();
      // Waiting for the start must leave the job some of its call's time, or the caller's own timeout answers first.
      const slowStart = () =>
        refuse(
          "sql",
          `its database process took ${Math.round(performance.now() - began)} ms to start, leaving no time before ` +
            "the call's deadline; try again shortly (a process is kept ready once one has started)",
        );
      const startLeft = left();
      timer = setTimeout(
        () =>
          finish(
            startLeft < this.#startTimeoutMs ? slowStart() : refuse("sql", "its database process did not start"),
            undefined,
            false,
          ),
        Math.max(0, Math.min(this.#startTimeoutMs, startLeft)),
      );
      child.ready.then(async () => {
        if (settled) return;
        clearTimeout(timer);
        const waited = Math.round(performance.now() - began);
        const rest = Math.floor(left());
        if (rest <= 0) return finish(slowStart(), undefined, false);
        const advice = JOB_DEADLINE_ADVICE[job.kind] ?? JOB_DEADLINE_ADVICE.query;
        const deadline = Math.min(run.timeoutMs, rest);
        const past = deadline === run.timeoutMs
          ? `it ran past its deadline of ${run.timeoutMs} ms (query_timeout_ms)`
          : `it ran past the ${deadline} ms its call had left after ${waited} ms waiting for its database process ` +
            `to start (query_timeout_ms is ${run.timeoutMs})`;
        timer = setTimeout(
          () => finish(refuse("sql", `${past} and was stopped; ${advice}`), undefined, false),
          deadline,
        );
        await child.writer.write(jsonLine(job));
        let next: IteratorResult<unknown>;
        try {
          next = await child.replies.next();
        } catch (err) {
          // readJsonLines stops at the cap with a RangeError; the line is left unread, so the process cannot serve on.
          if (!(err instanceof RangeError)) throw err;
          const cap = this.#maxReplyBytes.toLocaleString("en-US");
          return finish(
            refuse("too-large", `its answer passed the ${cap} bytes a database process may send; ${TOO_LARGE_ADVICE}`),
            undefined,
            false,
          );
        }
        if (next.done) return finish(refuse("sql", "its database process ended"), undefined, false);
        const reply = next.value as DatabaseReply;
        if ("ok" in reply) return finish(undefined, reply.ok, true);
        const { code, message, hotJournal } = reply.error;
        finish(new (hotJournal === true ? HotJournalError : PolicyError)(code, String(message)), undefined, true);
      }).catch((err) => {
        finish(err instanceof PolicyError ? err : refuse("sql", "its database process failed"), undefined, false);
      });
    });
  }

  /**
   * Starts a process now, if none is idle, so that the first job finds one
   * ready. A process that cannot start says why at the first job.
   */
  warm(): void {
    this.#spare();
  }

  /**
   * Kills every process and refuses new jobs; a job still running ends with a shutting-down refusal.
   *
   * @returns Resolves once every process has exited.
   */
  async close(): Promise<void> {
    this.#closed = true;
    for (const end of [...this.#busy.values()]) end();
    for (const child of this.#idle.splice(0)) this.#kill(child, false);
    await Promise.all([...this.#all].map((child) => child.process.status));
  }

  #spawn(): Child {
    if (Deno.permissions.querySync({ name: "read", path: this.#database }).state !== "granted") {
      throw new PolicyError(
        "no-permission",
        `Cannot open the database: reading it is outside what this process was started with; ${RESTART}`,
      );
    }
    if (this.#writable && Deno.permissions.querySync({ name: "write", path: this.#database }).state !== "granted") {
      throw new PolicyError(
        "no-permission",
        "Cannot execute: writing the database is outside what this process was started with (it was started " +
          `read-only); ${RESTART}`,
      );
    }
    const standalone = Deno.build.standalone;
    // A file that was not there yet is taken as it is first used, so that every process checks against one file.
    this.#identity ??= databaseIdentity(this.#database);
    const { program, args } = databaseProcessCommand({
      database: this.#database,
      writable: this.#writable,
      maxMemoryMb: this.#maxMemoryMb,
      maxDatabaseMb: this.#maxDatabaseMb,
      identity: this.#identity,
      standalone,
      execPath: Deno.execPath(),
      serverFiles: this.#serverFiles,
    });
    let process: Deno.ChildProcess;
    try {
      process = new Deno.Command(program, {
        args,
        clearEnv: true,
        env: processEnv(),
        stdin: "piped",
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
    } catch (err) {
      if (!(err instanceof Deno.errors.NotCapable)) throw err;
      throw new PolicyError(
        "no-permission",
        standalone
          // The binary's --allow-run names the path it was built to (deno compile --output): a moved binary may not start itself.
          ? "Cannot start the database process: this binary may not run itself (--allow-run); build it with " +
            "--output where it runs from"
          : `Cannot start the database process: this process may not run deno (--allow-run); ${RESTART}`,
      );
    }
    const replies = readJsonLines(process.stdout, this.#maxReplyBytes);
    const ready = replies.next().then(async (first) => {
      await this.#startGate;
      const reply = first.value as { ready?: boolean } & Partial<Extract<DatabaseReply, { error: unknown }>>;
      if (reply?.ready === true) return;
      if (reply?.error !== undefined) throw new PolicyError(reply.error.code, String(reply.error.message));
      throw new PolicyError("sql", "Cannot open the database: its database process ended before it was ready");
    });
    // A spare nobody waits on yet must not fail the process with an unhandled rejection.
    ready.catch(() => {});
    const child: Child = {
      process,
      writer: process.stdin.getWriter(),
      replies,
      ready,
      maxMemoryMb: this.#maxMemoryMb,
    };
    this.#all.add(child);
    process.status.then(() => this.#all.delete(child));
    return child;
  }

  /**
   * Keeps `maxIdle` processes warm (with two: one for the next call, one spare while it works); ends any other,
   * and one started under another heap cap than the pool's now (a spare under the new cap takes its place).
   */
  #release(child: Child): void {
    if (child.maxMemoryMb !== this.#maxMemoryMb) {
      this.#end(child);
      this.#spare();
    } else if (this.#idle.length < this.#maxIdle) this.#idle.push(child);
    else this.#end(child);
  }

  /** Starts an idle process, unless the pool is closed or one is idle already. */
  #spare(): void {
    if (this.#closed || this.#idle.length > 0) return;
    try {
      this.#idle.push(this.#spawn());
    } catch {
      // The next job starts one itself and reports why it cannot.
    }
  }

  /**
   * Kills a process at once; after a job was stopped, makes sure a spare is ready for the next call, started once
   * the killed one is gone: a writer's spare then never meets its locks, and rolls back the journal it left.
   */
  #kill(child: Child, spare: boolean): void {
    try {
      child.process.kill("SIGKILL");
    } catch {
      // It has exited already.
    }
    this.#end(child);
    if (spare) void child.process.status.then(() => this.#spare());
  }

  /** Closes a process's stdin (it exits at EOF) and stops reading its stdout. */
  #end(child: Child): void {
    child.writer.close().catch(() => {});
    child.replies.return(undefined).catch(() => {});
  }
}

/**
 * The environment of a database process: nothing of the server's but where
 * Deno keeps its cache (so that the process finds its modules compiled).
 * The process has no network access, so proxies and certificates are of no
 * use to it.
 */
function processEnv(): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1" };
  if (Deno.permissions.querySync({ name: "env", variable: "DENO_DIR" }).state === "granted") {
    const dir = Deno.env.get("DENO_DIR");
    if (dir !== undefined) env.DENO_DIR = dir;
  }
  return env;
}
