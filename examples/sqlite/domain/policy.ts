import { dirname, resolve } from "node:path";
import { definePolicy, type Policy } from "@forge/toolkit/validate";
import type { Config } from "./config.ts";
import { databaseReads } from "./super_journal.ts";

/** Where a config came from: what {@linkcode policyFor} needs besides the config itself. */
export interface ConfigSource {
  /** The config file, or undefined when there is none. Relative paths in the config start at its folder. */
  path: string | undefined;
  /**
   * The names of the environment variables the config references (the loader's `variables`).
   * @default {[]}
   */
  variables?: readonly string[];
}

/**
 * The one policy both layers enforce for a config: read the config file
 * (never its folder) and the database file;
 * write the database file only when `writable` is true, and the audit file
 * when there is one; the variables the config references; run this deno,
 * which starts the database processes that do every read (each with read
 * access to the database file alone; see `DatabaseProcesses`). SQLite's own
 * side files (`-journal`, `-wal`, `-shm`) need no flag: Deno checks only the
 * path given to `DatabaseSync` (see `deno_facts_test.ts`); a writable server
 * reads the journal itself before it opens the database for writing
 * (`super_journal.ts`), and so may read it.
 *
 * @param config The validated config.
 * @param source The config file and the variables it uses.
 * @returns The frozen policy.
 */
export function policyFor(config: Config, source: ConfigSource): Policy {
  const database = databasePathOf(config, source.path);
  const audit = auditFileOf(config, source.path);
  return definePolicy({
    readFiles: [
      ...(source.path === undefined ? [] : [resolve(source.path)]),
      ...(database ? databaseReads(database, config.writable) : []),
    ],
    writeFiles: [...(audit ? [audit] : []), ...(database && config.writable ? [database] : [])],
    env: source.variables ?? [],
    // The database processes (see database_processes.ts): this deno, with read access to the database only.
    run: database ? [Deno.execPath()] : [],
    limits: { maxRows: config.max_rows, maxSqlLength: config.max_sql_length },
    baseDir: baseDirOf(source.path),
  });
}

/**
 * The database file of a config as an absolute path (relative to the config's folder), if any.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @returns The absolute path, or undefined when the config names no database.
 */
export function databasePathOf(config: Config, configPath: string | undefined): string | undefined {
  return config.database === undefined ? undefined : resolve(baseDirOf(configPath), config.database);
}

/**
 * The audit file of a config as an absolute path (relative to the config's folder), if any.
 *
 * @param config The validated config.
 * @param configPath The config file, or undefined when there is none.
 * @returns The absolute path, or undefined for stderr.
 */
export function auditFileOf(config: Config, configPath: string | undefined): string | undefined {
  return config.audit_file === undefined ? undefined : resolve(baseDirOf(configPath), config.audit_file);
}

/** The folder relative paths of a config start at: the config file's, else the working directory. */
function baseDirOf(configPath: string | undefined): string {
  return configPath === undefined ? Deno.cwd() : dirname(resolve(configPath));
}
