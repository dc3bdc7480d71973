// A database process needs its database file and nothing else. Under deno the
// server starts it with only that grant; a compiled server starts its own
// binary, which holds every grant baked into it (the config file, the audit
// file, the tenant variable, running itself). So the process first lets go of
// all that, and starts only once Deno says it is gone.
import type { DatabaseProcessRequest } from "./database_process_args.ts";
import { databaseReads } from "./super_journal.ts";

/** The kinds a database process never uses: revoked whole (every scoped grant of the kind goes with it). */
const UNUSED_KINDS = ["env", "run", "net", "sys", "ffi", "import"] as const;

/**
 * Revokes, for the rest of the process's life, every grant but reading the
 * database (and writing it, for a process that may write): the kinds it never
 * uses whole, write whole in a read-only process, and each file of
 * `dropRead`/`dropWrite` by its path. Then asks Deno what is left.
 *
 * @param request The database and the other files the process may hold.
 * @returns What is still granted that should not be, e.g. `read "/etc/s.json"`; empty when only the database is left.
 *
 * @example A process started with only its database's grant has nothing to drop
 * ```ts ignore
 * import { keepOnlyDatabase } from "./keep_only_database.ts";
 *
 * const left = keepOnlyDatabase({ database: "/srv/shop.db", writable: false, dropRead: [], dropWrite: [] });
 * if (left.length > 0) throw new Error(`still held: ${left.join(", ")}`);
 * ```
 */
export function keepOnlyDatabase(request: Omit<DatabaseProcessRequest, "maxMemoryMb">): string[] {
  const { database } = request;
  const kept = databaseReads(database, request.writable);
  const others = (paths: readonly string[]) => paths.filter((path) => !kept.includes(path));
  for (const name of UNUSED_KINDS) Deno.permissions.revokeSync({ name });
  if (!request.writable) Deno.permissions.revokeSync({ name: "write" });
  for (const path of others(request.dropRead)) Deno.permissions.revokeSync({ name: "read", path });
  for (const path of others(request.dropWrite)) Deno.permissions.revokeSync({ name: "write", path });

  const granted = (descriptor: Deno.PermissionDescriptor) => Deno.permissions.querySync(descriptor).state === "granted";
  const left: string[] = [];
  for (const name of UNUSED_KINDS) if (granted({ name })) left.push(name);
  if (granted({ name: "run", command: Deno.execPath() })) left.push(`run ${JSON.stringify(Deno.execPath())}`);
  if (!request.writable && granted({ name: "write", path: database })) left.push(`write ${JSON.stringify(database)}`);
  for (const path of others(request.dropRead)) {
    if (granted({ name: "read", path })) left.push(`read ${JSON.stringify(path)}`);
  }
  for (const path of others(request.dropWrite)) {
    if (granted({ name: "write", path })) left.push(`write ${JSON.stringify(path)}`);
  }
  return left;
}
