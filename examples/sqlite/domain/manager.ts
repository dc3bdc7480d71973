// The Manager: one per process. It reads the current config on every call,
// so an edit applies at the next call, and owns the database processes that
// do the work (see database_processes.ts): the server opens no database itself.
import { PolicyError } from "@forge/toolkit/validate";
import type { TableDescription, TableSummary } from "./catalog.ts";
import { type Config, TOOL_TIMEOUT_MS } from "./config.ts";
import { type DatabaseIdentity, databaseIdentity } from "./database_file.ts";
import { type DatabaseJob, HotJournalError, type WriteLimits } from "./database_job.ts";
import { DatabaseProcesses, type DatabaseProcessesOptions, type ServerFiles } from "./database_processes.ts";
import { databasePathOf, policyFor } from "./policy.ts";
import { COUNT_ROWS_PER_MS } from "./database_sizes.ts";
import type { QueryResult } from "./query.ts";
import { paramsToJson, type SqlParams } from "./values.ts";
import type { ExecuteResult } from "./write.ts";

/**
 * How long before the tool's own deadline (`TOOL_TIMEOUT_MS`) a job is
 * stopped, in milliseconds, so that its error is the answer and not the
 * toolkit's timeout, even on a loaded machine.
 */
const CALL_MARGIN_MS = 500;

/** Options of {@linkcode Manager}. */
export interface ManagerOptions {
  /** The config file; relative paths in the config start at its folder. */
  configPath?: string;
  /** The config the process was started with: its database is the only one the Deno flags let it open. */
  initial: Config;
  /**
   * How often {@linkcode Manager.watch} re-reads the config, in milliseconds.
   * @default {1000}
   */
  pollMs?: number;
  /**
   * The limits on database processes.
   * @default {{ maxQueries: 4 }}
   */
  processes?: DatabaseProcessesOptions;
}

interface Session {
  config: Config;
  path: string;
}

const RESTART = "restart the server with the flags from --print-permissions";

/** Answers the tools: list, describe, query and (when the config allows) execute. */
export class Manager {
  readonly #config: () => Promise<Config>;
  readonly #configPath: string | undefined;
  readonly #startPath: string | undefined;
  readonly #pollMs: number;
  readonly #listeners: ((config: Config) => void)[] = [];
  #last: Config | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;
  #processes: DatabaseProcesses | undefined;
  /** The process that may write, started at the first `execute` while the config says writable. */
  #writers: DatabaseProcesses | undefined;
  readonly #processOptions: DatabaseProcessesOptions | undefined;
  /** The files the server's grants name (its policy at start): a compiled server's processes let go of them. */
  readonly #serverFiles: ServerFiles;
  /** The database file at start: every database process refuses another one at its path. */
  readonly #identity: DatabaseIdentity | undefined;
  /** A rollback of a hot journal under way in the writer's process, which calls that met the journal share. */
  #recovering: Promise<boolean> | undefined;

  /**
   * Makes the Manager; nothing is opened until the first call.
   *
   * @param config Returns the current config (the loader's `get`).
   * @param options The config file, the config at start, and the poll interval.
   */
  constructor(config: () => Promise<Config>, options: ManagerOptions) {
    this.#config = config;
    this.#configPath = options.configPath;
    this.#startPath = databasePathOf(options.initial, options.configPath);
    this.#identity = this.#startPath === undefined ? undefined : databaseIdentity(this.#startPath);
    this.#pollMs = options.pollMs ?? 1000;
    const policy = policyFor(options.initial, { path: options.configPath });
    this.#serverFiles = { read: policy.readFiles, write: policy.writeFiles };
    this.#processOptions = options.processes;
  }

  /**
   * The tables and views of the database, read by a database process.
   *
   * @param signal Ends the call early.
   * @returns The tables and whether the list was cut.
   * @throws {PolicyError} When there is no usable database.
   */
  async listTables(signal?: AbortSignal): Promise<{ tables: TableSummary[]; truncated: boolean }> {
    return await this.#job(() => ({ kind: "list" }), signal) as { tables: TableSummary[]; truncated: boolean };
  }

  /**
   * One table or view in detail, read by a database process (describing a
   * view compiles it, which can take SQLite as long as any query).
   *
   * @param name The table's name.
   * @param signal Ends the call early.
   * @returns Its columns, indexes and foreign keys.
   * @throws {PolicyError} When there is no usable database or no such table.
   */
  async describeTable(name: string, signal?: AbortSignal): Promise<TableDescription> {
    return await this.#job(() => ({ kind: "describe", table: name }), signal) as TableDescription;
  }

  /**
   * Runs one read-only query in a database process, which compiles, judges,
   * prices and reads it; the call answers by `query_timeout_ms`, and a query
   * still running then is stopped with its process.
   *
   * @param sql The query.
   * @param params Values to bind.
   * @param signal Ends the call early (the process is stopped).
   * @returns The rows, capped at `max_rows` and 1 MiB.
   * @throws {PolicyError} When the query is refused, fails, or runs past its deadline.
   */
  async query(sql: string, params: SqlParams, signal?: AbortSignal): Promise<QueryResult> {
    const job = (config: Config): DatabaseJob => ({
      kind: "query",
      sql,
      params: paramsToJson(params),
      limits: {
        maxRows: config.max_rows,
        maxSqlLength: config.max_sql_length,
        allowRecursive: config.allow_recursive,
        maxScanRows: config.max_scan_rows,
        maxCountRows: config.query_timeout_ms * COUNT_ROWS_PER_MS,
      },
    });
    return await this.#job(job, signal) as QueryResult;
  }

  /**
   * Starts a database process for the current config's database, if it has
   * one, so that the first call does not wait for a process to start.
   *
   * @returns Resolves once the process is starting (not once it is ready).
   */
  async warm(): Promise<void> {
    const config = await this.config();
    const path = databasePathOf(config, this.#configPath);
    if (path === undefined || path !== this.#startPath) return;
    this.#pool(path, false, config).warm();
  }

  /**
   * The permission patterns of a write, without running it (what a probe
   * shows): a database process compiles it on its read-only connection.
   *
   * @param sql The write.
   * @param signal Ends the work early (the process is stopped): the call was cancelled or ran out of time.
   * @returns The patterns, e.g. `["sql:insert:users"]`.
   * @throws {PolicyError} When writing is off, or the statement is refused.
   */
  async writePatterns(sql: string, signal?: AbortSignal): Promise<string[]> {
    return await this.#job(
      (config) => ({ kind: "patterns", sql, limits: writeLimits(config) }),
      signal,
      "patterns",
    ) as string[];
  }

  /**
   * Runs one write in the database process that may write, allowed to touch
   * only what its patterns name; it is stopped at `query_timeout_ms` like a
   * query (SQLite undoes a write stopped before its commit).
   *
   * @param sql The write.
   * @param params Values to bind.
   * @param signal Ends the call early (the process is stopped).
   * @param approved The patterns the call was approved under: the write may act on nothing else.
   * @returns The number of changed rows and the last inserted rowid.
   * @throws {PolicyError} When writing is off in the config or in the process's flags, or the write is refused.
   */
  async execute(
    sql: string,
    params: SqlParams,
    signal?: AbortSignal,
    approved?: readonly string[],
  ): Promise<ExecuteResult> {
    const job = (config: Config): DatabaseJob => ({
      kind: "execute",
      sql,
      params: paramsToJson(params),
      limits: writeLimits(config),
      ...(approved === undefined ? {} : { approved: [...approved] }),
    });
    return await this.#job(job, signal, "write") as ExecuteResult;
  }

  /**
   * The current config (what the next call will use).
   *
   * @returns The config.
   */
  async config(): Promise<Config> {
    const config = await this.#config();
    this.#seen(config);
    return config;
  }

  /**
   * Calls `listener` with each new config: those the calls see, and those a
   * timer finds every `pollMs` when no call comes (so a tool that a reload
   * turns on is announced without waiting for a call).
   *
   * @param listener Called with each config that differs from the last one seen.
   */
  watch(listener: (config: Config) => void): void {
    this.#listeners.push(listener);
    if (this.#timer !== undefined) return;
    const timer = setInterval(() => void this.config().catch(() => {}), this.#pollMs);
    Deno.unrefTimer(timer);
    this.#timer = timer;
  }

  /**
   * Stops watching and ends every database process.
   *
   * @returns Resolves when they have exited.
   */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    const pools = [this.#processes, this.#writers];
    this.#processes = this.#writers = undefined;
    await Promise.all(pools.map((pool) => pool?.close()));
  }

  /**
   * Runs a job, made for the current config, in a database process under
   * that config's deadline: a read-only one, or (`write`) the one that may
   * write; `patterns` and `write` need `"writable": true`.
   */
  async #job(
    job: (config: Config) => DatabaseJob,
    signal?: AbortSignal,
    needs: "read" | "patterns" | "write" = "read",
  ): Promise<unknown> {
    // The tool's own deadline runs from about now: the job, its wait for a process to start included, ends first.
    const endsAt = performance.now() + TOOL_TIMEOUT_MS - CALL_MARGIN_MS;
    const { config, path } = await this.#session(signal);
    if (needs !== "read" && !config.writable) {
      throw new PolicyError("no-permission", 'Cannot execute: writing is turned off in the config ("writable": false)');
    }
    const run = () =>
      this.#pool(path, needs === "write", config).run(job(config), {
        timeoutMs: config.query_timeout_ms,
        endsAt,
        signal,
        maxMemoryMb: config.max_memory_mb,
      });
    try {
      return await run();
    } catch (err) {
      // A write stopped before its commit (killed at its deadline, a crash, a restart) left a hot journal, which a
      // read-only process cannot get past: while writing is on, the process that may write rolls it back, then the
      // job runs again, once. Else the database would stay refused, `execute` too, whose patterns a reader works out.
      if (!(err instanceof HotJournalError) || !config.writable || !await this.#rollBack(path, config, endsAt)) {
        throw err;
      }
      return await run();
    }
  }

  /**
   * Has the process that may write roll back a hot journal (it checks the
   * journal first, as before a write); calls that meet the journal at once
   * share one rollback.
   *
   * @returns Whether it was rolled back (when not, why is on stderr).
   */
  #rollBack(path: string, config: Config, endsAt: number): Promise<boolean> {
    this.#recovering ??= this.#pool(path, true, config).run(
      { kind: "recover", maxDatabaseMb: config.max_database_mb },
      {
        timeoutMs: config.query_timeout_ms,
        endsAt,
        maxMemoryMb: config.max_memory_mb,
      },
    ).then(
      () => true,
      (err: unknown) => {
        console.error(`sqlite: the database has a hot journal, which the writer could not roll back: ${err}`);
        return false;
      },
    ).finally(() => this.#recovering = undefined);
    return this.#recovering;
  }

  /**
   * The readers' pool, or the writer's, made at first use with `config`'s
   * heap cap; each job then brings the cap of the config it was made for.
   */
  #pool(path: string, write: boolean, config: Config): DatabaseProcesses {
    const common = { serverFiles: this.#serverFiles, maxMemoryMb: config.max_memory_mb, identity: this.#identity };
    return write
      ? this.#writers ??= new DatabaseProcesses(path, {
        writable: true,
        maxQueries: 1,
        maxIdle: 1,
        maxDatabaseMb: config.max_database_mb,
        ...common,
      })
      : this.#processes ??= new DatabaseProcesses(path, { ...common, ...this.#processOptions });
  }

  async #session(signal?: AbortSignal): Promise<Session> {
    const config = await this.config();
    signal?.throwIfAborted();
    const path = databasePathOf(config, this.#configPath);
    if (path === undefined) {
      throw new PolicyError(
        "not-found",
        'Cannot use the database: no database is configured (set "database" in the config)',
      );
    }
    // The Deno flags were derived from the database at start; another file
    // would be refused by Deno anyway, so say why before trying.
    if (path !== this.#startPath) {
      throw new PolicyError(
        "no-permission",
        `Cannot use the database: the config now names a different database file than this process was started for; ${RESTART}`,
      );
    }
    if (!config.writable && this.#writers !== undefined) {
      // Writing was turned off: the process that may write ends.
      void this.#writers.close();
      this.#writers = undefined;
    }
    return { config, path };
  }

  #seen(config: Config): void {
    if (config === this.#last) return;
    this.#last = config;
    for (const listener of this.#listeners) listener(config);
  }
}

function writeLimits(config: Config): WriteLimits {
  return {
    maxSqlLength: config.max_sql_length,
    allowRecursive: config.allow_recursive,
    maxDatabaseMb: config.max_database_mb,
  };
}
