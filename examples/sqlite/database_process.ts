// The sqlite server's database process: the only place its connections
// live. The server starts it with read access to the database file (and
// write access for the process that runs `execute`) and nothing else, sends
// it one job per line on stdin and reads one reply per line on stdout; it
// kills the process when a job runs past its deadline (node:sqlite cannot
// interrupt SQLite). See domain/database_processes.ts. Under deno the server
// runs this file; a compiled server runs its own binary, whose main.ts hands
// over here.
import type { Sqlite } from "./domain/sqlite.ts";
import { openDatabase } from "./domain/connection.ts";
import { databaseFileProblem, type DatabaseIdentity } from "./domain/database_file.ts";
import { answerJob, type Connections, type DatabaseJob, JOB_ACTIONS, MAX_JOB_BYTES } from "./domain/database_job.ts";
import { parseDatabaseProcessArgs } from "./domain/database_process_args.ts";
import { DatabaseSizes } from "./domain/database_sizes.ts";
import { jsonLine, readJsonLines } from "./domain/json_lines.ts";
import { keepOnlyDatabase } from "./domain/keep_only_database.ts";
import { journalProblem } from "./domain/super_journal.ts";
import { DATABASE_CAP_MB, rollBackJournal } from "./domain/write.ts";

/**
 * Serves as a database process until stdin ends: drops every grant but the
 * database, opens it, says `{"ready":true}`, then answers one job per line.
 * When it cannot start it says why in one `{"error":…}` line and exits 1.
 *
 * @param args `Deno.args`, holding what `databaseProcessArgs()` wrote.
 * @returns Resolves at the end of stdin.
 *
 * @example From an entry point that is also the server
 * ```ts ignore
 * import { serveDatabaseProcess } from "./database_process.ts";
 *
 * await serveDatabaseProcess(Deno.args);
 * ```
 */
export async function serveDatabaseProcess(args: readonly string[]): Promise<void> {
  const out = Deno.stdout.writable.getWriter();
  let connections: Connections;
  let database: string;
  let maxDatabaseMb: number;
  try {
    const request = parseDatabaseProcessArgs(args);
    database = request.database;
    maxDatabaseMb = request.maxDatabaseMb ?? DATABASE_CAP_MB.default;
    const left = keepOnlyDatabase(request);
    if (left.length > 0) {
      // The paths are for the operator (stderr), not for the model that will read the refusal.
      console.error(`sqlite: the database process still holds ${left.join(", ")} after revoking them`);
      throw new Error("Cannot start the database process: it could not let go of grants it does not need");
    }
    const options = { maxMemoryMb: request.maxMemoryMb };
    // Deno checks the path, SQLite follows a link: the file at the path must be the one the server started with.
    assertSameFile(request.database, request.identity);
    const reader = openDatabase(request.database, false, options);
    let writer: Sqlite | undefined;
    if (request.writable) {
      // A connection that may write rolls a hot journal back: one planted to name another file is refused first.
      const refused = journalRefusal(request.database, maxDatabaseMb, "Cannot open the database for writing");
      if (refused !== undefined) throw new Error(refused);
      writer = openDatabase(request.database, true, options);
      // A write stopped by a kill left its journal behind: the first read through a read-write connection rolls it back.
      rollBackJournal(writer, "open the database for writing");
    }
    // A swap between the check and the open would show now, unless it was undone in between (see the README).
    assertSameFile(request.database, request.identity);
    connections = { reader, writer };
  } catch (err) {
    const message = err instanceof Error ? err.message : "Cannot open the database";
    await out.write(jsonLine({ error: { code: "no-permission", message } }));
    Deno.exit(1);
  }
  const sizes = new DatabaseSizes(connections.reader);
  await out.write(jsonLine({ ready: true }));
  for await (const job of readJsonLines(Deno.stdin.readable, MAX_JOB_BYTES)) {
    // SQLite looks for a hot journal at the start of every transaction, not only at the open: a journal planted
    // since is refused before each write, and each rollback, too (a red team's second round deleted a file through
    // the second execute).
    const kind = (job as DatabaseJob).kind;
    // Each job's cap is its config's, which a reload may have changed since this process started.
    const cap = kind === "execute"
      ? (job as Extract<DatabaseJob, { kind: "execute" }>).limits.maxDatabaseMb
      : (job as Extract<DatabaseJob, { kind: "recover" }>).maxDatabaseMb;
    const refused = (kind === "execute" || kind === "recover") && connections.writer !== undefined
      ? journalRefusal(database, cap ?? maxDatabaseMb, `Cannot ${JOB_ACTIONS[kind]}`)
      : undefined;
    const answer = refused === undefined
      ? answerJob(connections, job as DatabaseJob, sizes)
      : { error: { code: "no-permission", message: refused } };
    await out.write(jsonLine(answer));
  }
}

/**
 * Refuses to go on when `database` is not the file the server started with
 * (a link or another file in its place, or a linked folder on its way), with
 * the reason on stderr for the operator: the model is not told host paths.
 */
function assertSameFile(database: string, identity: DatabaseIdentity | undefined): void {
  const problem = databaseFileProblem(database, identity);
  if (problem === undefined) return;
  console.error(`sqlite: the database process refuses ${database}: ${problem}`);
  throw new Error(
    "Cannot open the database: its path no longer leads to the file this server started with (a link or another " +
      "file is in its place, or a folder on its way is a link); the operator must check its folder, and restart " +
      "the server to serve another file",
  );
}

/**
 * The refusal (beginning `action`) of a write to `database` whose journal
 * SQLite must not roll back (see `journalProblem`), with the reason on stderr
 * for the operator; undefined when SQLite may go on.
 */
function journalRefusal(database: string, maxDatabaseMb: number, action: string): string | undefined {
  const problem = journalProblem(database, maxDatabaseMb);
  if (problem === undefined) return undefined;
  console.error(`sqlite: ${action.toLowerCase()} on ${database}: ${problem}`);
  return `${action}: the database's journal is one this server will not roll back (it names another file for ` +
    "SQLite to delete, is not a plain file or has a second name, or would size or write the database past " +
    "max_database_mb; or the database is reached through a link); the operator must check its folder";
}

if (import.meta.main) await serveDatabaseProcess(Deno.args);
