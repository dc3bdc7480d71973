// The code a query thread runs. A Worker loads its modules under the
// process's read permission, which covers the config file and the database
// only; a Worker made from a Blob reads no file. So the thread's source is
// built from functions that refer to nothing outside their own bodies:
// readPlannedRows from validate/, and threadMain below.
import { type PlannedRows, type ReadPlan, readPlannedRows } from "@forge/toolkit/validate";
import type { LoopRows } from "./query_cost.ts";

/** How the thread opens its connection: what `openDatabase` does for a read-only one. */
export interface ThreadOpen {
  /** The database file. */
  path: string;
  /** node:sqlite's constructor options. */
  options: Record<string, unknown>;
  /** SQLite's limit on one string or blob, in bytes. */
  maxValueBytes: number;
  /** SQLite's hard heap limit, in bytes: for the whole process, so that no step can hold more. */
  maxHeapBytes: number;
}

/** The price check the thread makes before it reads: see `queryCost`. */
export interface ThreadCost {
  /** Loop nests: the loops of each multiply, the nests add up. */
  nests: LoopRows[][];
  /** The most rows all nests together may visit. */
  maxScanRows: number;
  /** The least a loop that names no table is priced at. */
  virtualRows: number;
}

/** One query for the thread. */
export interface ThreadJob {
  /** Opens the connection on the first job. */
  open: ThreadOpen;
  /** What to read. */
  plan: ReadPlan;
  /** The price check, for a SELECT or WITH. */
  cost?: ThreadCost;
  /** The authorizer calls the main thread approved while compiling the plan, as JSON arrays; nothing else compiles. */
  approved: string[];
  /** The authorizer's result codes. */
  auth: { ok: number; deny: number };
  /** One Int32: the main thread stores 1 there to stop the read at the next row. */
  cancel: SharedArrayBuffer;
}

/** The thread's answer. */
export type ThreadReply =
  | { kind: "rows"; result: PlannedRows }
  | { kind: "error"; message: string; code?: string; aborted: boolean };

interface Connection {
  prepare(sql: string): { get(): Record<string, unknown>; all(): Record<string, unknown>[] };
  setAuthorizer(callback: ((...args: unknown[]) => number) | null): void;
  enableDefensive(on: boolean): void;
  limits: { attach: number; length: number };
}

interface ThreadScope {
  onmessage: ((event: MessageEvent<ThreadJob>) => void) | null;
  postMessage(reply: ThreadReply): void;
}

/** The thread's body. It refers to nothing outside itself but its argument and globals. */
function threadMain(read: typeof readPlannedRows): void {
  const scope = globalThis as unknown as ThreadScope;
  let db: Connection | undefined;
  // Row counts of tables, kept while no other connection has committed (PRAGMA data_version).
  const counts = new Map<string, number>();
  let version: unknown;
  const price = (connection: Connection, cost: ThreadCost): void => {
    const now = connection.prepare("PRAGMA data_version").get().data_version;
    if (now !== version) counts.clear();
    version = now;
    const count = (table: string): number => {
      let rows = counts.get(table);
      if (rows === undefined) {
        // Capped: past the budget a table's exact size changes no verdict.
        const quoted = `"${table.replaceAll('"', '""')}"`;
        const limit = Math.ceil(cost.maxScanRows) + 1;
        rows = Number(
          connection.prepare(`SELECT count(*) AS n FROM (SELECT 1 FROM main.${quoted} LIMIT ${limit})`).get().n,
        );
        counts.set(table, rows);
      }
      return rows;
    };
    let tables: string[] | undefined;
    const rowsOf = (loop: LoopRows): number => {
      if (typeof loop === "number") return loop;
      if (loop.length > 0) return Math.max(...loop.map(count));
      tables ??= connection.prepare("SELECT name FROM sqlite_schema WHERE type = 'table'").all()
        .map((row) => String(row.name).toLowerCase());
      return Math.max(cost.virtualRows, ...tables.map(count));
    };
    let total = 0;
    for (const nest of cost.nests) {
      const factors = nest.map(rowsOf);
      total += factors.reduce((a, b) => a * b, 1);
      if (total > cost.maxScanRows) {
        const shown = factors.map((n) => n.toLocaleString("en-US")).join(" × ");
        throw new Error(
          `its plan would visit about ${total.toLocaleString("en-US")} rows (${shown}), more than max_scan_rows ` +
            `(${
              cost.maxScanRows.toLocaleString("en-US")
            }); join on indexed columns, filter with WHERE, or join fewer tables`,
        );
      }
    }
  };
  scope.onmessage = async ({ data: job }) => {
    try {
      if (db === undefined) {
        const { DatabaseSync } = await import("node:sqlite");
        const opened = new DatabaseSync(job.open.path, job.open.options) as unknown as Connection;
        opened.enableDefensive(true);
        opened.limits.attach = 0;
        opened.limits.length = job.open.maxValueBytes;
        opened.prepare(`PRAGMA hard_heap_limit = ${Math.floor(job.open.maxHeapBytes)}`).get();
        db = opened;
      }
      if (job.cost !== undefined) price(db, job.cost);
      const approved = new Set(job.approved);
      const { ok, deny } = job.auth;
      db.setAuthorizer((...args) => (approved.has(JSON.stringify(args)) ? ok : deny));
      const flag = new Int32Array(job.cancel);
      try {
        const result = read(db as never, job.plan, () => Atomics.load(flag, 0) !== 0);
        scope.postMessage({ kind: "rows", result });
      } finally {
        db.setAuthorizer(null);
      }
    } catch (err) {
      const error = err as { message?: unknown; code?: unknown; name?: unknown };
      scope.postMessage({
        kind: "error",
        message: String(error?.message ?? err).split("\n")[0].slice(0, 200),
        code: typeof error?.code === "string" ? error.code : undefined,
        aborted: error?.name === "AbortError",
      });
    }
  };
}

/** The JavaScript source of a query thread. */
export const THREAD_SOURCE: string = `const readPlannedRows = ${readPlannedRows};\n(${threadMain})(readPlannedRows);\n`;
