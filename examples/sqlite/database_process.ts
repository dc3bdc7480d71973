// The sqlite server's database process: the only place its connections
// live. The server starts it with read access to the database file (and
// write access for the process that runs `execute`) and nothing else, sends
// it one job per line on stdin and reads one reply per line on stdout; it
// kills the process when a job runs past its deadline (node:sqlite cannot
// interrupt SQLite). See domain/database_processes.ts.
import type { Sqlite } from "./domain/sqlite.ts";
import { openDatabase } from "./domain/connection.ts";
import { answerJob, type Connections, type DatabaseJob, MAX_JOB_BYTES } from "./domain/database_job.ts";
import { DatabaseSizes } from "./domain/database_sizes.ts";
import { jsonLine, readJsonLines } from "./domain/json_lines.ts";

const [path, mode] = Deno.args;
const out = Deno.stdout.writable.getWriter();
let connections: Connections;
try {
  const reader = openDatabase(path, false);
  let writer: Sqlite | undefined;
  if (mode === "write") {
    writer = openDatabase(path, true);
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
