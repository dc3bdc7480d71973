// The sqlite server's database process: the only place its read-only
// connection lives. The server starts it with read access to the database
// file and nothing else, sends it one job per line on stdin and reads one
// reply per line on stdout; it kills the process when a job runs past its
// deadline (node:sqlite cannot interrupt SQLite). See domain/database_processes.ts.
import { openDatabase } from "./domain/connection.ts";
import { answerJob, type DatabaseJob, MAX_JOB_BYTES } from "./domain/database_job.ts";
import { DatabaseSizes } from "./domain/database_sizes.ts";
import { jsonLine, readJsonLines } from "./domain/json_lines.ts";

const out = Deno.stdout.writable.getWriter();
let db;
try {
  db = openDatabase(Deno.args[0], false);
} catch (err) {
  const message = err instanceof Error ? err.message : "Cannot open the database";
  await out.write(jsonLine({ error: { code: "no-permission", message } }));
  Deno.exit(1);
}
const sizes = new DatabaseSizes(db);
await out.write(jsonLine({ ready: true }));
for await (const job of readJsonLines(Deno.stdin.readable, MAX_JOB_BYTES)) {
  await out.write(jsonLine(answerJob(db, job as DatabaseJob, sizes)));
}
