// The Manager: one per process. It reads the current config on every call,
// so an edit applies at the next call, and owns the two connections.
import { AUTH, type Sqlite } from "./_sqlite.ts";
import { PolicyError } from "@forge/toolkit/validate";
import { describeTable, listTables, type TableDescription, type TableSummary } from "./catalog.ts";
import type { Config } from "./config.ts";
import { connectionOptions, MAX_SQLITE_HEAP_BYTES, MAX_VALUE_BYTES, openDatabase } from "./connection.ts";
import { databasePathOf } from "./policy.ts";
import { encodeRows, planQuery, type QueryResult } from "./query.ts";
import { QueryThreads, type QueryThreadsOptions } from "./query_threads.ts";
import type { SqlParams } from "./values.ts";
import { type ExecuteResult, executeWrite, planWrite } from "./write.ts";

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
   * The limits on query threads.
   * @default {{ maxLate: 2, maxThreads: 4 }}
   */
  threads?: QueryThreadsOptions;
}

interface Session {
  config: Config;
  path: string;
  reader: Sqlite;
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
  #reader: Sqlite | undefined;
  #writer: Sqlite | undefined;
  #threads: QueryThreads | undefined;
  readonly #threadOptions: QueryThreadsOptions | undefined;

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
    this.#pollMs = options.pollMs ?? 1000;
    this.#threadOptions = options.threads;
  }

  /**
   * The tables and views of the database.
   *
   * @param signal Aborts before the work starts.
   * @returns The tables and whether the list was cut.
   * @throws {PolicyError} When there is no usable database.
   */
  async listTables(signal?: AbortSignal): Promise<{ tables: TableSummary[]; truncated: boolean }> {
    const { reader } = await this.#session(signal);
    return listTables(reader);
  }

  /**
   * One table or view in detail.
   *
   * @param name The table's name.
   * @param signal Aborts before the work starts.
   * @returns Its columns, indexes and foreign keys.
   * @throws {PolicyError} When there is no usable database or no such table.
   */
  async describeTable(name: string, signal?: AbortSignal): Promise<TableDescription> {
    const { reader } = await this.#session(signal);
    return describeTable(reader, name);
  }

  /**
   * Runs one read-only query: compiled and judged here on the read-only
   * connection, run on a query thread that answers by `query_timeout_ms`.
   *
   * @param sql The query.
   * @param params Values to bind.
   * @param signal Stops waiting for the query (its thread runs on until SQLite returns, and counts as late).
   * @returns The rows, capped at `max_rows` and 1 MiB.
   * @throws {PolicyError} When the query is refused, fails, or runs past its deadline.
   */
  async query(sql: string, params: SqlParams, signal?: AbortSignal): Promise<QueryResult> {
    const { config, path, reader } = await this.#session(signal);
    const { columns, plan, approved, cost } = planQuery(reader, sql, {
      params,
      maxRows: config.max_rows,
      maxSqlLength: config.max_sql_length,
      allowRecursive: config.allow_recursive,
      maxScanRows: config.max_scan_rows,
    });
    this.#threads ??= new QueryThreads(
      {
        path,
        options: { ...connectionOptions(false) },
        maxValueBytes: MAX_VALUE_BYTES,
        maxHeapBytes: MAX_SQLITE_HEAP_BYTES,
      },
      this.#threadOptions,
    );
    const found = await this.#threads.run(plan, {
      approved,
      cost,
      auth: { ok: AUTH.OK, deny: AUTH.DENY },
      timeoutMs: config.query_timeout_ms,
      signal,
    });
    return encodeRows(columns, found, plan.maxBytes);
  }

  /**
   * The permission patterns of a write, without running it (what a probe shows).
   *
   * @param sql The write.
   * @returns The patterns, e.g. `["sql:insert:users"]`.
   * @throws {PolicyError} When writing is off, or the statement is refused.
   */
  async writePatterns(sql: string): Promise<string[]> {
    const { config, reader } = await this.#writable();
    return planWrite(reader, sql, { maxSqlLength: config.max_sql_length, allowRecursive: config.allow_recursive })
      .patterns;
  }

  /**
   * Runs one write on the read-write connection, allowed to touch only what its patterns name.
   *
   * @param sql The write.
   * @param params Values to bind.
   * @param signal Aborts before the write starts.
   * @returns The number of changed rows and the last inserted rowid.
   * @throws {PolicyError} When writing is off in the config or in the process's flags, or the write is refused.
   */
  async execute(sql: string, params: SqlParams, signal?: AbortSignal): Promise<ExecuteResult> {
    const { config, path, reader } = await this.#writable(signal);
    const plan = planWrite(reader, sql, {
      maxSqlLength: config.max_sql_length,
      allowRecursive: config.allow_recursive,
    });
    this.#writer ??= openDatabase(path, true);
    return executeWrite(this.#writer, { plan, params, allowRecursive: config.allow_recursive });
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
   * Stops watching and closes both connections.
   *
   * @returns Resolves when closed.
   */
  close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#threads?.close();
    this.#threads = undefined;
    this.#reader?.close();
    this.#writer?.close();
    this.#reader = this.#writer = undefined;
    return Promise.resolve();
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
    if (!config.writable && this.#writer !== undefined) {
      this.#writer.close();
      this.#writer = undefined;
    }
    this.#reader ??= openDatabase(path, false);
    return { config, path, reader: this.#reader };
  }

  async #writable(signal?: AbortSignal): Promise<Session> {
    const session = await this.#session(signal);
    if (!session.config.writable) {
      throw new PolicyError("no-permission", 'Cannot execute: writing is turned off in the config ("writable": false)');
    }
    return session;
  }

  #seen(config: Config): void {
    if (config === this.#last) return;
    this.#last = config;
    for (const listener of this.#listeners) listener(config);
  }
}
