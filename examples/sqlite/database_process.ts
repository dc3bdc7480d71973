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
import { answerJob, type Connections, type DatabaseJob, MAX_JOB_BYTES } from "./domain/database_job.ts";
import { parseDatabaseProcessArgs } from "./domain/database_process_args.ts";
import { DatabaseSizes } from "./domain/database_sizes.ts";
import { jsonLine, readJsonLines } from "./domain/json_lines.ts";
import { keepOnlyDatabase } from "./domain/keep_only_database.ts";
import { journalProblem } from "./domain/super_journal.ts";

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
  try {
    const request = parseDatabaseProcessArgs(args);
    const left = keepOnlyDatabase(request);
    if (left.length > 0) {
      // The paths are for the operator (stderr), not for the model that will read the refusal.
      console.error(`sqlite: the database process still holds ${left.join(", ")} after revoking them`);
      throw new Error("Cannot start the database process: it could not let go of grants it does not need");
    }
    const options = { maxMemoryMb: request.maxMemoryMb };
    const reader = openDatabase(request.database, false, options);
    let writer: Sqlite | undefined;
    if (request.writable) {
      // A connection that may write rolls a hot journal back: one planted to name another file is refused first.
      const problem = journalProblem(request.database);
      if (problem !== undefined) {
        console.error(`sqlite: the database ${request.database} is not opened for writing: ${problem}`);
        throw new Error(
          "Cannot open the database for writing: its journal was not left by this server (it names another file " +
            "for SQLite to delete, or is not a plain file); the operator must check the database's folder",
        );
      }
      writer = openDatabase(request.database, true, options);
      // A write stopped by a kill left its journal behind: the first read through a read-write connection rolls it back.
      writer.prepare("SELECT count(*) FROM sqlite_schema").get();
    }
    connections = { reader, writer };
  } catch (err) {
    const message = err instanceof Error ? err.message : "Cannot open the database";
    await out.write(jsonLine({ error: { code: "no-permission", message } }));
    Deno.exit(1);
  }
  const sizes = new DatabaseSizes(connections.reader);
  await out.write(jsonLine({ ready: true }));
  for await (const job of readJsonLines(Deno.stdin.readable, MAX_JOB_BYTES)) {
    await out.write(jsonLine(answerJob(connections, job as DatabaseJob, sizes)));
  }
}

if (import.meta.main) await serveDatabaseProcess(Deno.args);
