// The code a query thread runs. A Worker loads its modules under the
// process's read permission, which covers the config file and the database
// only; a Worker made from a Blob reads no file. So the thread's source is
// built from functions that refer to nothing outside their own bodies:
// readPlannedRows from validate/, and threadMain below.
import { type PlannedRows, type ReadPlan, readPlannedRows } from "@forge/toolkit/validate";

/** How the thread opens its connection: what `openDatabase` does for a read-only one. */
export interface ThreadOpen {
  /** The database file. */
  path: string;
  /** node:sqlite's constructor options. */
  options: Record<string, unknown>;
  /** SQLite's limit on one string or blob, in bytes. */
  maxValueBytes: number;
}

/** One query for the thread. */
export interface ThreadJob {
  /** Opens the connection on the first job. */
  open: ThreadOpen;
  /** What to read. */
  plan: ReadPlan;
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
  prepare(sql: string): unknown;
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
  scope.onmessage = async ({ data: job }) => {
    try {
      if (db === undefined) {
        const { DatabaseSync } = await import("node:sqlite");
        const opened = new DatabaseSync(job.open.path, job.open.options) as unknown as Connection;
        opened.enableDefensive(true);
        opened.limits.attach = 0;
        opened.limits.length = job.open.maxValueBytes;
        db = opened;
      }
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
