// How the server tells a database process what to open. Under deno the words
// follow `database_process.ts`; a compiled server starts its own binary, whose
// baked `-config …` comes first, so the words follow that. One writer and one
// reader of them, so the two sides cannot drift.
import { isAbsolute } from "node:path";
import { quote } from "@forge/toolkit/validate";
import { isMemoryCapMb, MEMORY_CAP_MB } from "./connection.ts";
import type { DatabaseIdentity } from "./database_file.ts";

/** The word that puts `main.ts` (or `database_process.ts`) in database-process mode. */
export const DATABASE_PROCESS_FLAG = "--database-process";

/** What a database process opens, and which grants it lets go of first. */
export interface DatabaseProcessRequest {
  /** The database file, absolute. */
  database: string;
  /** Whether the process opens a read-write connection too (for `execute`). */
  writable: boolean;
  /** The cap on SQLite's memory in the process, in MiB (`max_memory_mb`). */
  maxMemoryMb: number;
  /**
   * The largest the database file may be, in MiB (`max_database_mb`): a process that may write refuses a journal
   * that would roll the database back past it, at its open (a job brings the cap of its own config).
   * @default {undefined, for the default of `max_database_mb`}
   */
  maxDatabaseMb?: number;
  /**
   * The database file the server started with (see `databaseFileProblem`); absent when the server found none.
   * @default {undefined}
   */
  identity?: DatabaseIdentity;
  /**
   * Other files the process may read when it starts: a compiled server's
   * process holds the binary's baked grants, which name these.
   */
  dropRead: readonly string[];
  /** Other files the process may write when it starts (the audit file of a compiled server). */
  dropWrite: readonly string[];
}

/**
 * The words that start a database process for `request`, after the script
 * (under deno) or after the binary's baked arguments (compiled).
 *
 * @param request What the process opens and drops.
 * @returns The words, the flag first.
 *
 * @example A read-only process of a compiled server
 * ```ts
 * import { databaseProcessArgs } from "./database_process_args.ts";
 * import assert from "node:assert/strict";
 *
 * const args = databaseProcessArgs({
 *   database: "/srv/shop.db",
 *   writable: false,
 *   maxMemoryMb: 256,
 *   dropRead: ["/etc/s.json"],
 *   dropWrite: [],
 * });
 * assert.deepEqual(args, ["--database-process", "/srv/shop.db", "--max-memory-mb=256", "--drop-read=/etc/s.json"]);
 * ```
 */
export function databaseProcessArgs(request: DatabaseProcessRequest): string[] {
  return [
    DATABASE_PROCESS_FLAG,
    request.database,
    `--max-memory-mb=${request.maxMemoryMb}`,
    ...(request.identity === undefined ? [] : [`--database-id=${request.identity.dev}:${request.identity.ino}`]),
    ...(request.writable ? ["--write"] : []),
    ...(request.maxDatabaseMb === undefined ? [] : [`--max-database-mb=${request.maxDatabaseMb}`]),
    ...request.dropRead.map((path) => `--drop-read=${path}`),
    ...request.dropWrite.map((path) => `--drop-write=${path}`),
  ];
}

/**
 * Whether a process was started as a database process: its arguments hold
 * {@linkcode DATABASE_PROCESS_FLAG}, wherever the baked ones end.
 *
 * @param args `Deno.args`.
 * @returns True in database-process mode.
 *
 * @example A compiled server's process
 * ```ts
 * import { isDatabaseProcess } from "./database_process_args.ts";
 * import assert from "node:assert/strict";
 *
 * assert.ok(isDatabaseProcess(["-config", "/etc/s.json", "--database-process", "/srv/shop.db"]));
 * assert.ok(!isDatabaseProcess(["-config", "/etc/s.json"]));
 * ```
 */
export function isDatabaseProcess(args: readonly string[]): boolean {
  return args.includes(DATABASE_PROCESS_FLAG);
}

/**
 * Reads what {@linkcode databaseProcessArgs} wrote; what comes before the
 * flag (a compiled server's baked arguments) is not read.
 *
 * @param args `Deno.args`.
 * @returns The request.
 * @throws {TypeError} When the flag is missing, a path is not absolute, the heap cap is missing or out of
 * bounds, or a word is unknown.
 *
 * @example Read back what the server wrote
 * ```ts
 * import { databaseProcessArgs, parseDatabaseProcessArgs } from "./database_process_args.ts";
 * import assert from "node:assert/strict";
 *
 * const request = {
 *   database: "/srv/shop.db",
 *   writable: true,
 *   maxMemoryMb: 64,
 *   identity: { dev: 2049, ino: 1837 },
 *   maxDatabaseMb: 1_024,
 *   dropRead: [],
 *   dropWrite: ["/var/log/a.jsonl"],
 * };
 * assert.deepEqual(parseDatabaseProcessArgs(["-config", "/etc/s.json", ...databaseProcessArgs(request)]), request);
 * ```
 */
export function parseDatabaseProcessArgs(args: readonly string[]): DatabaseProcessRequest {
  const at = args.indexOf(DATABASE_PROCESS_FLAG);
  const [database, ...rest] = at === -1 ? [] : args.slice(at + 1);
  if (database === undefined || !isAbsolute(database)) bad("it needs the database file's absolute path");
  const request: DatabaseProcessRequest & { dropRead: string[]; dropWrite: string[] } = {
    database,
    writable: false,
    maxMemoryMb: NaN,
    dropRead: [],
    dropWrite: [],
  };
  for (const word of rest) {
    const [, option, path] = /^--(drop-read|drop-write)=(.*)$/s.exec(word) ?? [];
    const [, megabytes] = /^--max-memory-mb=(\d{1,5})$/.exec(word) ?? [];
    const [, dev, ino] = /^--database-id=(\d{1,20}):(\d{1,20})$/.exec(word) ?? [];
    const [, databaseMb] = /^--max-database-mb=([1-9]\d{0,6})$/.exec(word) ?? [];
    if (word === "--write") request.writable = true;
    else if (databaseMb !== undefined && request.maxDatabaseMb === undefined) {
      request.maxDatabaseMb = Number(databaseMb);
    } else if (megabytes !== undefined && Number.isNaN(request.maxMemoryMb)) request.maxMemoryMb = Number(megabytes);
    else if (dev !== undefined && request.identity === undefined) {
      request.identity = { dev: Number(dev), ino: Number(ino) };
    } else if (option !== undefined && isAbsolute(path)) {
      (option === "drop-read" ? request.dropRead : request.dropWrite).push(path);
    } else bad(`${quote(word, 80)} is not one of its arguments`);
  }
  // No default: a process must not run with a cap other than the one its server chose.
  if (!isMemoryCapMb(request.maxMemoryMb)) {
    bad(`it needs --max-memory-mb=<MiB>, a whole number from ${MEMORY_CAP_MB.min} to ${MEMORY_CAP_MB.max}`);
  }
  return request;
}

function bad(state: string): never {
  throw new TypeError(`Cannot start the database process: ${state}`);
}
