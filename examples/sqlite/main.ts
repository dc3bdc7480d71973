// The sqlite server's entry point (the server is server.ts; see README.md).
// A compiled server has no deno to start its database processes with, and a
// bundled one has no database_process.ts beside it, so each starts its own
// entry (the binary; the bundle's main.js under deno) with
// `--database-process` among the arguments: then this file serves as a
// database process and never loads the server, whose toolkit import would
// take stdout over at once.
import { serveDatabaseProcess } from "./database_process.ts";
import { isDatabaseProcess } from "./domain/database_process_args.ts";

if (isDatabaseProcess(Deno.args)) await serveDatabaseProcess(Deno.args);
else await import("./server.ts");
